package protowatch_test

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func configMapKind(drop bool) *protowatch.Kind {
	return protowatch.NewKind("ConfigMap", func() protowatch.Object { return &corev1.ConfigMap{} }, drop)
}

func managed(manager string) []metav1.ManagedFieldsEntry {
	return []metav1.ManagedFieldsEntry{{
		Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
		Time: &metav1.Time{Time: time.Unix(1700000000, 0)}, FieldsType: "FieldsV1",
		FieldsV1: metav1.NewFieldsV1(`{"f:data":{"f:a":{}}}`),
	}}
}

func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: rv, UID: "uid-" + "name",
			Labels: map[string]string{"app": "x"}, ManagedFields: managed("kubectl"),
			CreationTimestamp: metav1.Time{Time: time.Unix(1700000000, 0)}},
		Data:       map[string]string{"a": strings.Repeat("x", 256)},
		BinaryData: map[string][]byte{"b": {0, 1, 2, 255}},
	}
}

// events is a stream with every event type, an ERROR's Status included.
func events() []watch.Event {
	bookmark := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "12",
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	return []watch.Event{
		{Type: watch.Added, Object: configMap("a", "10")},
		{Type: watch.Modified, Object: configMap("a", "11")},
		{Type: watch.Bookmark, Object: bookmark},
		{Type: watch.Deleted, Object: configMap("a", "13")},
		{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old resource version: 1 (13)").ErrStatus},
	}
}

// The events decoded are those client-go's decoder delivers, deep-equal.
func TestWatchDecodesAsClientGo(t *testing.T) {
	stream := encodeStream(t, events())
	want := drain(clientGoWatch(t, body(stream)))
	if len(want) != len(events()) {
		t.Fatalf("client-go decoded %d events, want %d", len(want), len(events()))
	}
	got := drain(configMapKind(false).Watch(body(stream)))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ from client-go's:\n got %#v\nwant %#v", got, want)
	}
	if err := apierrors.FromObject(got[4].Object); !apierrors.IsResourceExpired(err) {
		t.Fatalf("ERROR event is %v, want a 410 Expired", err)
	}
}

// Secrets: []byte values come out equal, and the stream's buffer, read
// into again for the next event, is not shared with them.
func TestWatchSecretsDoNotShareTheFrame(t *testing.T) {
	secret := func(rv string, b byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: rv, ManagedFields: managed("m")},
			Data: map[string][]byte{"k": repeat(b, 64)}, Type: corev1.SecretTypeOpaque}
	}
	stream := encodeStream(t, []watch.Event{{Type: watch.Added, Object: secret("1", 'a')}, {Type: watch.Modified, Object: secret("2", 'b')}})
	want := drain(clientGoWatch(t, body(stream)))
	k := protowatch.NewKind("Secret", func() protowatch.Object { return &corev1.Secret{} }, false)
	d := k.NewDecoder(body(stream))
	var got []watch.Event
	for {
		typ, obj, err := d.Decode()
		if err != nil {
			break
		}
		got = append(got, watch.Event{Type: typ, Object: obj})
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("secrets differ from client-go's:\n got %#v\nwant %#v", got, want)
	}
	if s := got[0].Object.(*corev1.Secret); string(s.Data["k"]) != string(repeat('a', 64)) || s.ManagedFields[0].FieldsV1.GetRawString() != `{"f:data":{"f:a":{}}}` {
		t.Fatalf("the first secret changed when the next was read: %v", s)
	}
}

func repeat(b byte, n int) []byte { return []byte(strings.Repeat(string(b), n)) }

// With DropManagedFields the objects are client-go's without managedFields.
func TestWatchDropsManagedFields(t *testing.T) {
	stream := encodeStream(t, events())
	want := withoutManaged(drain(clientGoWatch(t, body(stream))))
	got := drain(configMapKind(true).Watch(body(stream)))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ from client-go's without managedFields:\n got %#v\nwant %#v", got, want)
	}
}

// A broken stream ends the watch as client-go's: a truncated event closes
// it quietly; an event that cannot be decoded is reported by an ERROR
// event (a 500 Status) first.
func TestWatchBrokenStreams(t *testing.T) {
	good := encodeStream(t, events()[:1])
	two := encodeStream(t, events()[:2])
	cases := map[string]struct {
		stream    []byte
		errorLast bool
	}{
		"truncated":        {stream: two[:len(two)-3]},
		"truncated header": {stream: append(append([]byte{}, good...), 0, 0)},
		"garbage":          {stream: append(append([]byte{}, good...), 0, 0, 0, 3, 'x', 'y', 'z'), errorLast: true},
		"too large":        {stream: append(append([]byte{}, good...), 0x7f, 0, 0, 0), errorLast: true},
		"other kind":       {stream: encodeStream(t, []watch.Event{{Type: watch.Added, Object: &corev1.Pod{}}}), errorLast: true},
		"unknown type":     {stream: encodeStream(t, []watch.Event{{Type: "RENAMED", Object: configMap("a", "1")}}), errorLast: true},
		"bad object":       {stream: badObject(t), errorLast: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := drain(configMapKind(true).Watch(body(c.stream)))
			if !c.errorLast {
				if len(got) != 1 || got[0].Type != watch.Added {
					t.Fatalf("events %v, want the first event and the watch closed quietly", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatal("no event")
			}
			last := got[len(got)-1]
			if err := apierrors.FromObject(last.Object); last.Type != watch.Error || !apierrors.IsInternalError(err) {
				t.Fatalf("last event %s %v, want an ERROR with a 500 Status", last.Type, err)
			}
		})
	}
}

// badObject is a stream whose ConfigMap's bytes are not a ConfigMap: its
// metadata field says 5 bytes and has 2.
func badObject(t testing.TB) []byte {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Raw: []byte{0x0a, 5, 1, 2}}
	b, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return encodeRawStream(t, []metav1.WatchEvent{{Type: string(watch.Added), Object: runtime.RawExtension{Raw: append([]byte("k8s\x00"), b...)}}})
}

// Stop closes the result channel and the stream, with events unread.
func TestWatchStop(t *testing.T) {
	stream := encodeStream(t, events())
	c := &closer{r: body(stream)}
	w := configMapKind(false).Watch(c)
	w.Stop()
	w.Stop()
	for range w.ResultChan() { // at most the event being sent
	}
	if !c.closed.Load() {
		t.Fatal("stream not closed")
	}
}

// managedFields between other fields of the metadata, and the metadata
// after other fields of the object (kube-apiserver writes them in field
// order), are left out all the same.
func TestWatchDropsManagedFieldsAnywhere(t *testing.T) {
	var meta []byte
	for _, m := range []metav1.ObjectMeta{{Name: "a"}, {ManagedFields: managed("x")}, {Namespace: "ns", Labels: map[string]string{"l": "v"}}} {
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		meta = append(meta, b...)
	}
	data, err := (&corev1.ConfigMap{Data: map[string]string{"k": "v"}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	obj := binary.AppendUvarint(append(slices.Clone(data), 0x0a), uint64(len(meta))) // field 1, the metadata
	obj = append(append(obj, meta...), data...)                                      // the data again: the same map entry
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Raw: obj}
	raw, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	stream := encodeRawStream(t, []metav1.WatchEvent{{Type: string(watch.Added), Object: runtime.RawExtension{Raw: append([]byte("k8s\x00"), raw...)}}})
	want := drain(clientGoWatch(t, body(stream)))
	if len(want) != 1 || len(want[0].Object.(*corev1.ConfigMap).ManagedFields) != 1 {
		t.Fatalf("client-go decoded %v, want a ConfigMap with managedFields", want)
	}
	// The ConfigMap's bytes, before and after the metadata, carry an empty
	// ObjectMeta whose strings override name and namespace: later fields
	// win, for both decoders.
	want = withoutManaged(want)
	got := drain(configMapKind(true).Watch(body(stream)))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ from client-go's without managedFields:\n got %#v\nwant %#v", got, want)
	}
	if cm := got[0].Object.(*corev1.ConfigMap); cm.Labels["l"] != "v" || cm.Data["k"] != "v" {
		t.Fatalf("fields around managedFields lost: %v", cm)
	}
}

// withoutManaged drops the managedFields of the events' ConfigMaps.
func withoutManaged(evs []watch.Event) []watch.Event {
	for _, ev := range evs {
		if obj, ok := ev.Object.(*corev1.ConfigMap); ok {
			obj.ManagedFields = nil
		}
	}
	return evs
}
