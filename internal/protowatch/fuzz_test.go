package protowatch_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	restwatch "k8s.io/client-go/rest/watch"

	"github.com/steadyctl/steady/internal/protowatch"
)

// maxFrame is the largest watch event the Decoder reads (decoder.go).
const maxFrame = 16 << 20

// result is one Decode's.
type result struct {
	typ watch.EventType
	obj runtime.Object
	err error
}

// decodeAll decodes events until the first error, which ends the list.
func decodeAll(decode func() (watch.EventType, runtime.Object, error)) []result {
	var out []result
	for {
		typ, obj, err := decode()
		out = append(out, result{typ, obj, err})
		if err != nil {
			return out
		}
	}
}

// clientGoDecode decodes stream as client-go's REST client does, without
// the StreamWatcher around it (which only passes the results on).
func clientGoDecode(t *testing.T, stream []byte) []result {
	n := runtime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion)
	objects, events, framer, err := n.StreamDecoder(runtime.ContentTypeProtobuf, map[string]string{"stream": "watch"})
	if err != nil {
		t.Fatal(err)
	}
	d := restwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(body(stream)), events), objects)
	return decodeAll(d.Decode)
}

// frames splits a stream into its frames' bytes, as far as it can.
func frames(stream []byte) [][]byte {
	var out [][]byte
	for len(stream) >= 4 {
		n := binary.BigEndian.Uint32(stream)
		stream = stream[4:]
		if uint64(n) > uint64(len(stream)) {
			break
		}
		out = append(out, stream[:n])
		stream = stream[n:]
	}
	return out
}

// quiet reports whether err ends a StreamWatcher without an ERROR event.
func quiet(err error) bool { return err == io.EOF || err == io.ErrUnexpectedEOF }

// watchSeeds are real watch streams, broken in the ways a stream breaks.
func watchSeeds(f *testing.F) [][]byte {
	all := encodeStream(f, events())
	one := encodeStream(f, events()[:1])
	pod := encodeStream(f, []watch.Event{{Type: watch.Added, Object: realPod()}})
	huge := binary.BigEndian.AppendUint32(nil, maxFrame)
	return [][]byte{
		all,
		one,
		all[:len(all)-3],                  // truncated inside an event
		append(bytes.Clone(one), 0, 0),    // truncated inside a header
		append(bytes.Clone(one), huge...), // a huge declared size, nothing after it
		append(bytes.Clone(one), 0x7f, 0, 0, 0, 'x'),            // beyond the bound
		append(bytes.Clone(one), 0, 0, 0, 3, 'x', 'y', 'z'),     // garbage
		append(bytes.Clone(one), 0, 0, 0, 4, 0x12, 2, 0x0a, 99), // a RawExtension whose raw runs past its end
		pod,          // another kind
		badObject(f), // a ConfigMap that is not one
		{0, 0, 0, 0}, // an empty event
		encodeStream(f, []watch.Event{{Type: "RENAMED", Object: configMap("a", "1")}}),
		envelopeStream(f, func(u []byte) []byte { // contentEncoding, a string, as a varint
			return append(bytes.TrimSuffix(u, []byte{0x1a, 0, 0x22, 0}), 0x18, 0, 0x22, 0)
		}),
		envelopeStream(f, func(u []byte) []byte { // raw again, at a field number the generated code truncates to 2
			other, err := configMap("b", "2").Marshal()
			if err != nil {
				f.Fatal(err)
			}
			u = binary.AppendUvarint(u, (1<<32+2)<<3|2)
			return append(binary.AppendUvarint(u, uint64(len(other))), other...)
		}),
	}
}

// envelopeStream is a stream of one ADDED ConfigMap whose envelope (a
// runtime.Unknown's protobuf) edit changes.
func envelopeStream(f *testing.F, edit func([]byte) []byte) []byte {
	raw, err := configMap("a", "1").Marshal()
	if err != nil {
		f.Fatal(err)
	}
	u, err := (&runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Raw: raw}).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	return encodeRawStream(f, []metav1.WatchEvent{{Type: string(watch.Added),
		Object: runtime.RawExtension{Raw: append([]byte("k8s\x00"), edit(u)...)}}})
}

// FuzzWatchDecode decodes streams with a Kind's Decoder and with
// client-go's, and wants the same events and the same end: a quiet one
// (end of stream, truncated) or an error. Deliberate differences:
//
//   - A Kind decodes its own kind and Status only; client-go decodes any
//     kind its scheme has (a watch of ConfigMaps that gets a Pod).
//   - A Kind reads the kind of the envelope, not its apiVersion, which
//     client-go looks up in its scheme: the API server answers a watch in
//     the version asked for.
//   - A frame that declares more than 16 MiB is an error at once; client-go
//     reads up to 16 MiB of it first, and ends quietly if the stream ends.
//   - Protobuf that protobuf's own parser refuses (protowire), and that the
//     generated code takes (groups, varints past 64 bits), is an error.
//   - A whole frame whose protobuf is cut short is an error; the generated
//     code says io.ErrUnexpectedEOF, which client-go takes for the end of
//     the stream, and ends the watch without an ERROR event.
//
// With managedFields dropped, the events are the same without them, but
// where the object is malformed protobuf that the generated code decodes
// whole and not in runs of fields (see fieldwise). The frame buffer grows
// with the bytes read, not with the sizes declared.
func FuzzWatchDecode(f *testing.F) {
	for _, s := range watchSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		want := clientGoDecode(t, stream)
		d := configMapKind(false).NewDecoder(body(stream))
		got := decodeAll(d.Decode)
		if c := protowatch.FrameBuffer(d); c > max(protowatch.MinGrowth, 2*len(stream)) {
			t.Fatalf("a stream of %d bytes grew the frame buffer to %d", len(stream), c)
		}
		fr := frames(stream)
		for i := range min(len(want), len(got)) {
			w, g := want[i], got[i]
			var frame []byte
			if i < len(fr) {
				frame = fr[i]
			}
			switch {
			case w.err == nil && g.err == nil:
				if g.typ != w.typ || !reflect.DeepEqual(g.obj, w.obj) {
					t.Fatalf("event %d: %s %#v; client-go: %s %#v", i, g.typ, g.obj, w.typ, w.obj)
				}
				continue
			case w.err != nil && g.err != nil:
				// The generated code reports truncated protobuf as
				// io.ErrUnexpectedEOF, which client-go passes on as the
				// stream's end: a whole frame that does not decode ends its
				// watch quietly. A Kind reports it (an ERROR event).
				complete := i < len(fr)
				if quiet(w.err) != quiet(g.err) && !declaresTooMuch(stream, i) && !(complete && quiet(w.err)) {
					t.Fatalf("event %d: ends with %v; client-go with %v", i, g.err, w.err)
				}
			case w.err == nil:
				if ofKind(w.obj) && wellFormed(frame) {
					t.Fatalf("event %d: %v; client-go decodes %s %#v", i, g.err, w.typ, w.obj)
				}
			default:
				if v, ok := apiVersion(frame); !ok || v == "v1" {
					t.Fatalf("event %d: decoded %s %#v; client-go: %v", i, g.typ, g.obj, w.err)
				}
			}
			break
		}
		checkDropped(t, stream, fr, got)
	})
}

// checkDropped decodes stream again with managedFields dropped, and
// encodings kept: the events are those of got without managedFields, and
// an ADDED or MODIFIED event's encoding decodes to its object.
func checkDropped(t *testing.T, stream []byte, fr [][]byte, got []result) {
	k := configMapKind(true)
	e := protowatch.NewEncodings()
	k.KeepEncodings(e)
	dropped := decodeAll(k.NewDecoder(body(stream)).Decode)
	for i, g := range got {
		if g.err != nil {
			return // a managedFields entry that does not decode may be dropped all the same
		}
		d := dropped[i]
		if d.err != nil && i < len(fr) && !fieldwise(objectRaw(fr[i]), func() protowatch.Object { return &corev1.ConfigMap{} }) {
			return // malformed protobuf, that the generated code takes whole
		}
		if d.err != nil {
			t.Fatalf("event %d: %v with managedFields dropped, decoded with them", i, d.err)
		}
		if cm, ok := g.obj.(*corev1.ConfigMap); ok {
			cm.ManagedFields = nil
			back := d.obj.(*corev1.ConfigMap)
			if enc, _ := e.Take(back.ResourceVersion, back.Namespace, back.Name); enc != nil && d.typ != watch.Deleted {
				var fromEnc corev1.ConfigMap
				if err := fromEnc.Unmarshal(enc); err != nil || !reflect.DeepEqual(&fromEnc, back) {
					t.Fatalf("event %d: the encoding kept decodes to %#v (%v), want %#v", i, &fromEnc, err, back)
				}
			}
		}
		if d.typ != g.typ || !reflect.DeepEqual(d.obj, g.obj) {
			t.Fatalf("event %d: with managedFields dropped %s %#v, want %s %#v", i, d.typ, d.obj, g.typ, g.obj)
		}
	}
}

// declaresTooMuch reports whether frame i's header declares more than
// the Decoder reads.
func declaresTooMuch(stream []byte, i int) bool {
	for ; len(stream) >= 4; i-- {
		n := binary.BigEndian.Uint32(stream)
		if i == 0 {
			return n > maxFrame
		}
		if uint64(n) > uint64(len(stream)-4) {
			return false
		}
		stream = stream[4+n:]
	}
	return false
}

// ofKind reports whether obj is what a ConfigMap Kind decodes: a
// ConfigMap, or an ERROR event's Status.
func ofKind(obj runtime.Object) bool {
	switch obj.(type) {
	case *corev1.ConfigMap, *metav1.Status:
		return true
	}
	return false
}

// apiVersion returns the apiVersion of the object frame holds, read with
// the generated code, or false if it does not read the frame.
func apiVersion(frame []byte) (string, bool) {
	var ev metav1.WatchEvent
	if ev.Unmarshal(frame) != nil {
		return "", false
	}
	return envelopeVersion(ev.Object.Raw)
}

// realPod is a Pod as the API server stores one.
func realPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns", ResourceVersion: "42", UID: "uid-web-0",
			Labels: map[string]string{"app": "web"}, ManagedFields: managed("kube-controller-manager"),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "uid-web"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"},
	}
}

// FuzzDecode decodes an answer of one object, and of a list, as
// protowatch.Decode and as client-go's Result.Into: where Decode takes
// the answer, client-go decodes the same object from it; where Decode
// fails, client-go fails too, but for the apiVersion, which Decode does
// not read (it asked for the version). Whatever the bytes, no panic.
func FuzzDecode(f *testing.F) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "20", Continue: "next"},
		Items: []corev1.ConfigMap{*configMap("a", "10"), {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}}}
	for _, obj := range []runtime.Object{configMap("a", "10"), list, realPod(), &metav1.Status{Status: metav1.StatusFailure, Code: 409}} {
		b := encodeObject(f, obj)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("k8s\x00"))
	f.Add([]byte(`{"kind":"ConfigMap","apiVersion":"v1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dec, err := runtime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion).Decoder(runtime.ContentTypeProtobuf, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			kind   string
			new    func() protowatch.Object
			decode func([]byte, protowatch.Object) (bool, error)
		}{
			{"ConfigMap", func() protowatch.Object { return &corev1.ConfigMap{} },
				func(b []byte, o protowatch.Object) (bool, error) { return protowatch.Decode(b, "ConfigMap", o) }},
			{"ConfigMapList", func() protowatch.Object { return &corev1.ConfigMapList{} }, protowatch.NewList("ConfigMapList").Decode},
		} {
			got := tc.new()
			ok, err := tc.decode(b, got)
			if !ok && err == nil {
				if !reflect.DeepEqual(got, tc.new()) {
					t.Fatalf("%s: declined the answer, and changed the object to %#v", tc.kind, got)
				}
				continue // another kind: client-go's to decode
			}
			want := tc.new()
			out, _, refErr := dec.Decode(b, nil, want)
			switch {
			case ok && (refErr != nil || out != want):
				if v, ok := envelopeVersion(b); !ok || v == "v1" {
					t.Fatalf("%s: decoded %#v; client-go: %v, %T", tc.kind, got, refErr, out)
				}
			case ok && !reflect.DeepEqual(got, want):
				t.Fatalf("%s: decoded\n%#v\nclient-go\n%#v", tc.kind, got, want)
			case err != nil && refErr == nil && out == want && wellFormedObject(b):
				t.Fatalf("%s: %v; client-go decodes %#v", tc.kind, err, want)
			}
		}
	})
}

// envelopeVersion returns the apiVersion of an answer's envelope, read
// with the generated code, or false if it does not read the envelope.
func envelopeVersion(b []byte) (string, bool) {
	var u runtime.Unknown
	if !bytes.HasPrefix(b, []byte("k8s\x00")) || u.Unmarshal(b[4:]) != nil {
		return "", false
	}
	return u.APIVersion, true
}

// FuzzEncode encodes objects (a Pod decoded from the fuzzer's bytes, so
// any Pod the generated code can hold) with protowatch.Encode, and wants
// client-go's serializer's bytes, but for the empty contentEncoding and
// contentType it spells out; and for any apiVersion and kind, the
// envelope the generated code writes.
func FuzzEncode(f *testing.F) {
	for _, obj := range []interface{ Marshal() ([]byte, error) }{realPod(), &corev1.Pod{}, &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}}} {
		b, err := obj.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "v1", "Pod")
	}
	f.Add([]byte{}, "apps/v1", "Deployment")
	f.Add([]byte{0x0a, 0}, "", "")
	f.Fuzz(func(t *testing.T, b []byte, apiVersion, kind string) {
		pod := &corev1.Pod{}
		if pod.Unmarshal(b) != nil {
			return
		}
		got, err := protowatch.Encode(apiVersion, kind, pod)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := pod.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
		env, err := u.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		emptyTail := []byte{0x1a, 0, 0x22, 0} // contentEncoding and contentType, empty
		if want := append([]byte("k8s\x00"), env...); !bytes.Equal(append(bytes.Clone(got), emptyTail...), want) {
			t.Fatalf("Encode(%q, %q) wrote\n%x\nthe generated code\n%x", apiVersion, kind, got, want)
		}
		if want := encodeObject(t, pod); !bytes.Equal(encodePod(t, pod), want) {
			t.Fatalf("Encode wrote\n%x\nclient-go\n%x", got, want)
		}
		if pod.APIVersion != "" || pod.Kind != "" {
			t.Fatal("Encode set the object's apiVersion or kind")
		}
	})
}

// encodePod is Encode's Pod as client-go's serializer writes it.
func encodePod(t *testing.T, pod *corev1.Pod) []byte {
	got, err := protowatch.Encode("v1", "Pod", pod)
	if err != nil {
		t.Fatal(err)
	}
	return append(got, 0x1a, 0, 0x22, 0)
}

// FuzzDropManaged decodes objects' protobuf without managedFields, and
// wants what the generated code decodes with them, less them; where the
// generated code refuses the bytes, they decode as the bytes with the
// managedFields cut out (by a cutter of this test's, on protowire) do: a
// managedFields entry that is not decoded cannot fail. Malformed protobuf
// that the generated code decodes whole, and not in runs of fields, may
// fail (see fieldwise). The encoding kept is the object's protobuf
// without managedFields.
func FuzzDropManaged(f *testing.F) {
	for _, obj := range []interface{ Marshal() ([]byte, error) }{configMap("a", "10"), realPod(), &corev1.Pod{}} {
		b, err := obj.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-1])
	}
	f.Add(managedAnywhere(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		dropManaged(t, b, func() protowatch.Object { return &corev1.ConfigMap{} })
		dropManaged(t, b, func() protowatch.Object { return &corev1.Pod{} })
	})
}

func dropManaged(t *testing.T, b []byte, newObject func() protowatch.Object) {
	got := newObject()
	enc, err := protowatch.UnmarshalWithoutManaged(got, b)
	want := newObject()
	refErr := want.Unmarshal(b)
	if refErr != nil {
		cut, ok := cutManaged(b)
		if !ok {
			if err == nil {
				t.Fatalf("%T: decoded bytes that are not protobuf: %#v", got, got)
			}
			return
		}
		want = newObject()
		refErr = want.Unmarshal(cut)
	} else {
		clearManaged(want)
	}
	switch {
	case err != nil && refErr == nil && fieldwise(b, newObject):
		t.Fatalf("%T: %v; the generated code decodes %#v", got, err, want)
	case err == nil && refErr != nil:
		t.Fatalf("%T: decoded %#v; the generated code: %v", got, got, refErr)
	case err == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%T: decoded\n%#v\nwant\n%#v", got, got, want)
	}
	metadataOnly(t, b, newObject, got, err)
	if err != nil || enc == nil {
		return
	}
	back := newObject()
	if err := back.Unmarshal(enc); err != nil || !reflect.DeepEqual(back, got) {
		t.Fatalf("%T: the encoding kept decodes to %#v (%v), want %#v", got, back, err, got)
	}
	if cut, _ := cutManaged(enc); !bytes.Equal(cut, enc) {
		t.Fatalf("%T: the encoding kept has managedFields", got)
	}
}

func clearManaged(obj protowatch.Object) {
	if m, ok := obj.(metav1.ObjectMetaAccessor); ok {
		m.GetObjectMeta().SetManagedFields(nil)
	}
}

// managedAnywhere is a ConfigMap's protobuf with managedFields amid its
// metadata's other fields, and its metadata amid the object's.
func managedAnywhere(f *testing.F) []byte {
	var meta []byte
	for _, m := range []metav1.ObjectMeta{{Name: "a"}, {ManagedFields: managed("x")}, {Namespace: "ns"}, {ManagedFields: managed("y")}} {
		b, err := m.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		meta = append(meta, b...)
	}
	data, err := (&corev1.ConfigMap{Data: map[string]string{"k": "v"}}).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	obj := binary.AppendUvarint(append(bytes.Clone(data), 0x0a), uint64(len(meta)))
	return append(append(obj, meta...), data...)
}

// metadataOnly checks the decoding of a WatchList's initial events against
// got and err, b decoded whole: it fails only where that does; and it
// leaves either the object whole, or its metadata alone with an encoding
// that decodes to the whole object.
func metadataOnly(t *testing.T, b []byte, newObject func() protowatch.Object, got protowatch.Object, err error) {
	part := newObject()
	enc, perr := protowatch.UnmarshalMetadataOnly(part, b)
	switch {
	case perr != nil && err == nil:
		t.Fatalf("%T: metadata only: %v; decoded whole: %#v", part, perr, got)
	case perr != nil || err != nil:
		return // what the whole decoding refuses may be cached, to fail when read
	case enc == nil && !reflect.DeepEqual(part, got):
		t.Fatalf("%T: metadata only, decoded whole:\n%#v\nwant\n%#v", part, part, got)
	case enc == nil:
		return
	}
	meta := func(o protowatch.Object) *metav1.ObjectMeta {
		return o.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	}
	want := newObject()
	*meta(want) = *meta(got)
	if !reflect.DeepEqual(part, want) {
		t.Fatalf("%T: metadata only:\n%#v\nwant its metadata alone:\n%#v", part, part, want)
	}
	whole := newObject()
	if err := whole.Unmarshal(enc); err != nil || !reflect.DeepEqual(whole, got) {
		t.Fatalf("%T: metadata only: its encoding decodes to %#v (%v), want %#v", part, whole, err, got)
	}
}
