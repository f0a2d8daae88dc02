package protowatch_test

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/protowatch"
)

// The encodings kept are those of the objects of ADDED and MODIFIED
// events, exactly as decoded: with and without managedFields, each decodes
// to its event's object, and without them it is the object's own protobuf.
func TestEncodingsDecodeToTheObjects(t *testing.T) {
	stream := encodeStream(t, events())
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("drop=%v", drop), func(t *testing.T) {
			k := configMapKind(drop)
			e := protowatch.NewEncodings()
			k.KeepEncodings(e)
			got := drain(k.Watch(body(stream)))
			if n := e.Len(); n != 2 {
				t.Fatalf("%d encodings kept, want 2 (the ADDED and MODIFIED events')", n)
			}
			for _, ev := range got[:2] {
				cm := ev.Object.(*corev1.ConfigMap)
				data := take(t, e, cm.ResourceVersion, cm.Namespace, cm.Name)
				if data == nil {
					t.Fatalf("%s event: no encoding kept", ev.Type)
				}
				var back corev1.ConfigMap
				if err := back.Unmarshal(data); err != nil {
					t.Fatalf("%s event: encoding does not decode: %v", ev.Type, err)
				}
				if !reflect.DeepEqual(&back, cm) {
					t.Fatalf("%s event: encoding decodes to\n%#v\nwant\n%#v", ev.Type, &back, cm)
				}
				own, err := cm.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(data, own) {
					t.Fatalf("%s event: the encoding is not the object's protobuf", ev.Type)
				}
			}
			if n := e.Len(); n != 0 {
				t.Fatalf("%d encodings left after taking both", n)
			}
		})
	}
}

// An object whose managedFields entries lie apart among its metadata's
// fields (protobuf allows it; the API server writes them last) still gets
// an encoding without any of them that decodes to the object.
func TestEncodingsCutEveryManagedFieldsRun(t *testing.T) {
	// Concatenated messages merge: this ObjectMeta has managedFields, then
	// an annotation, then managedFields again (and its strings thrice,
	// which generated code always writes).
	var meta []byte
	for _, m := range []metav1.ObjectMeta{
		{ManagedFields: managed("one")},
		{Annotations: map[string]string{"x": "y"}},
		{ManagedFields: managed("two")},
	} {
		m.Name, m.Namespace, m.ResourceVersion = "a", "ns", "10"
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		meta = append(meta, b...)
	}
	raw := binary.AppendUvarint([]byte{0x0a}, uint64(len(meta))) // metadata, field 1
	raw = append(raw, meta...)
	raw = append(raw, 0x12, 6, 0x0a, 1, 'k', 0x12, 1, 'v') // data, field 2: {k: v}
	k := configMapKind(true)
	e := protowatch.NewEncodings()
	k.KeepEncodings(e)
	cm := decodeRaw(t, k, raw)
	if cm.Annotations["x"] != "y" || cm.ManagedFields != nil || cm.Data["k"] != "v" || cm.Name != "a" {
		t.Fatalf("decoded %#v", cm)
	}
	enc := take(t, e, "10", "ns", "a")
	if enc == nil {
		t.Fatal("no encoding kept")
	}
	var back corev1.ConfigMap
	if err := back.Unmarshal(enc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, cm) {
		t.Fatalf("the encoding decodes to\n%#v\nwant\n%#v", &back, cm)
	}

	// A second metadata field (merged by decoding too) is past what the cut
	// handles: the object decodes, and no encoding is kept for it.
	twice := append(raw, raw[:len(raw)-8]...)
	if cm := decodeRaw(t, k, twice); cm.Annotations["x"] != "y" || cm.ManagedFields != nil {
		t.Fatalf("decoded %#v", cm)
	}
	if e.Len() != 0 {
		t.Fatal("an encoding was kept for an object with two metadata fields")
	}
}

// decodeRaw decodes raw, a ConfigMap's protobuf, as the object of an ADDED
// event through k.
func decodeRaw(t *testing.T, k *protowatch.Kind, raw []byte) *corev1.ConfigMap {
	t.Helper()
	unknown, err := (&runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Raw: raw}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	stream := encodeRawStream(t, []metav1.WatchEvent{{Type: string(watch.Added),
		Object: runtime.RawExtension{Raw: append([]byte("k8s\x00"), unknown...)}}})
	got := drain(k.Watch(body(stream)))
	if len(got) != 1 {
		t.Fatalf("%d events decoded, want 1: %v", len(got), got)
	}
	return got[0].Object.(*corev1.ConfigMap)
}

// An encoding is given only for the object it was kept for, once.
func TestEncodingsTakeChecksTheObject(t *testing.T) {
	stream := encodeStream(t, []watch.Event{{Type: watch.Added, Object: configMap("a", "10")}})
	k := configMapKind(true)
	e := protowatch.NewEncodings()
	k.KeepEncodings(e)
	drain(k.Watch(body(stream)))
	if take(t, e, "10", "ns", "b") != nil {
		t.Fatal("an encoding was given for another object at the same resourceVersion")
	}
	if e.Len() != 0 {
		t.Fatal("a mismatched encoding was kept: it can only be stale")
	}
	drain(k.Watch(body(stream)))
	if take(t, e, "11", "ns", "a") != nil || take(t, e, "10", "other", "a") != nil {
		t.Fatal("an encoding was given for another resourceVersion or namespace")
	}
	drain(k.Watch(body(stream)))
	if take(t, e, "10", "ns", "a") == nil {
		t.Fatal("no encoding for the object decoded")
	}
	if take(t, e, "10", "ns", "a") != nil {
		t.Fatal("an encoding was given twice")
	}
	k.KeepEncodings(nil)
	drain(k.Watch(body(stream)))
	if e.Len() != 0 {
		t.Fatal("an encoding was kept after KeepEncodings(nil)")
	}
}

// Encodings nobody takes are dropped once a generation more has come, so
// the table stays bounded; the latest are still there.
func TestEncodingsAreBounded(t *testing.T) {
	const gen = 8
	e := protowatch.NewEncodingsOf(gen)
	for i := range 5 * gen {
		protowatch.Keep(e, fmt.Sprint(i), "ns", "o", []byte{byte(i)})
		if n := e.Len(); n > 2*gen {
			t.Fatalf("%d encodings kept, want at most %d", n, 2*gen)
		}
	}
	if take(t, e, "0", "ns", "o") != nil {
		t.Fatal("the oldest encoding is still kept")
	}
	last := fmt.Sprint(5*gen - 1)
	if got := take(t, e, last, "ns", "o"); len(got) != 1 || got[0] != byte(5*gen-1) {
		t.Fatalf("the latest encoding is %v", got)
	}
}

// The tables that held a large list are let go once it has all been taken
// (a Go map keeps its memory when emptied); a small table, as a watch
// keeps, stays for the next encodings.
func TestEncodingsLetGoOfLargeTablesWhenEmpty(t *testing.T) {
	e := protowatch.NewEncodingsOf(1000)
	protowatch.Keep(e, "1", "ns", "o", []byte{1})
	take(t, e, "1", "ns", "o")
	if protowatch.Released(e) {
		t.Fatal("a table that held one encoding was let go")
	}
	const n = 300 // over smallTable, in one generation
	for i := range n {
		protowatch.Keep(e, fmt.Sprint(i), "ns", "o", []byte{byte(i)})
	}
	for i := range n {
		if got := take(t, e, fmt.Sprint(i), "ns", "o"); len(got) != 1 || got[0] != byte(i) {
			t.Fatalf("encoding %d is %v", i, got)
		}
		if released := protowatch.Released(e); released != (i == n-1) {
			t.Fatalf("after taking %d of %d: let go %v", i+1, n, released)
		}
	}
	protowatch.Keep(e, "next", "ns", "o", []byte{9})
	if got := take(t, e, "next", "ns", "o"); len(got) != 1 || got[0] != 9 {
		t.Fatalf("after the tables were let go, an encoding kept and taken is %v", got)
	}
}

// A WatchList's ADDED events before the first bookmark decode only their
// objects' metadata, their whole encoding kept for Take, which says so; every
// event after it, and every event of a plain Watch, decodes whole.
func TestWatchListDecodesMetadataUntilTheBookmark(t *testing.T) {
	bookmark := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "12",
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	stream := encodeStream(t, []watch.Event{
		{Type: watch.Added, Object: configMap("a", "10")},
		{Type: watch.Added, Object: configMap("b", "11")},
		{Type: watch.Bookmark, Object: bookmark},
		{Type: watch.Added, Object: configMap("c", "13")},
		{Type: watch.Modified, Object: configMap("a", "14")},
	})
	whole := drain(configMapKind(true).Watch(body(stream)))

	k := configMapKind(true)
	e := protowatch.NewEncodings()
	k.KeepEncodings(e)
	got := drain(k.WatchList(body(stream)))
	if len(got) != len(whole) {
		t.Fatalf("%d events, want %d", len(got), len(whole))
	}
	for i, ev := range got[:2] {
		cm, want := ev.Object.(*corev1.ConfigMap), whole[i].Object.(*corev1.ConfigMap)
		if cm.Data != nil || cm.BinaryData != nil || !reflect.DeepEqual(cm.ObjectMeta, want.ObjectMeta) {
			t.Fatalf("initial event %d: %#v, want the metadata of %#v alone", i, cm, want)
		}
		data, partial := e.Take(cm.ResourceVersion, cm.Namespace, cm.Name)
		var back corev1.ConfigMap
		if !partial || back.Unmarshal(data) != nil || !reflect.DeepEqual(&back, want) {
			t.Fatalf("initial event %d: Take says partial %v, decoding to %#v; want %#v", i, partial, &back, want)
		}
		if data, _ := e.Take(cm.ResourceVersion, cm.Namespace, cm.Name); data != nil {
			t.Fatalf("initial event %d: taken twice", i)
		}
	}
	for i := 2; i < len(got); i++ {
		if !reflect.DeepEqual(got[i], whole[i]) {
			t.Fatalf("event %d after the bookmark: %#v, want %#v", i, got[i], whole[i])
		}
	}
	if data, partial := e.Take("13", "ns", "c"); data == nil || partial {
		t.Fatalf("an ADDED event after the bookmark: its encoding %d bytes, partial %v; want a whole object's", len(data), partial)
	}

	// Without encodings kept, nothing could hold the rest: all whole.
	if got := drain(configMapKind(true).WatchList(body(stream))); !reflect.DeepEqual(got, whole) {
		t.Fatalf("WatchList without encodings: %#v, want %#v", got, whole)
	}
}

// Partial encodings are found by resourceVersion and given out only for
// their own object; two objects at one resourceVersion (which a server
// never sends) cannot share the table, so the second comes out whole.
func TestWatchListKeepsOnePartialEncodingPerResourceVersion(t *testing.T) {
	stream := encodeStream(t, []watch.Event{
		{Type: watch.Added, Object: configMap("a", "10")},
		{Type: watch.Added, Object: configMap("b", "10")},
	})
	k := configMapKind(true)
	e := protowatch.NewEncodings()
	k.KeepEncodings(e)
	got := drain(k.WatchList(body(stream)))
	if len(got) != 2 || got[0].Object.(*corev1.ConfigMap).Data != nil || got[1].Object.(*corev1.ConfigMap).Data == nil {
		t.Fatalf("events %#v: want a partial a and a whole b", got)
	}
	if data, _ := e.Take("10", "ns", "b"); data != nil {
		t.Fatal("b's Take gave a's encoding")
	}
	if _, partial := e.Take("10", "ns", "a"); !partial {
		t.Fatal("a's encoding is gone")
	}
	e.DropPartial()
	if n := e.Len(); n != 0 {
		t.Fatalf("%d encodings after DropPartial", n)
	}
}

// take returns what Encodings.Take gives for a whole object: its
// encoding, which must not be reported partial.
func take(t testing.TB, e *protowatch.Encodings, rv, namespace, name string) []byte {
	t.Helper()
	data, partial := e.Take(rv, namespace, name)
	if partial {
		t.Fatalf("%s/%s at %s: a whole object's encoding taken as a partial one's", namespace, name, rv)
	}
	return data
}
