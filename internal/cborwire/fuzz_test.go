package cborwire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/internal/testkit"
)

var fuzzGV = schema.GroupVersion{Group: "cborwire.steady.dev", Version: "v1"}

// fuzzScheme has a custom resource and the core kinds.
func fuzzScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypes(fuzzGV, &testkit.Gadget{}, &testkit.GadgetList{})
	metav1.AddToGroupVersion(s, fuzzGV)
	return s
}

// codec decodes CBOR with the Serializer of drop, as a REST client does.
type codec struct{ keep, drop runtime.Decoder }

func newCodec(t testing.TB, s *runtime.Scheme) codec {
	var c codec
	for _, drop := range []bool{false, true} {
		d, err := runtime.NewClientNegotiator(Serializer(s, drop), fuzzGV).Decoder(runtime.ContentTypeCBOR, nil)
		if err != nil {
			t.Fatal(err)
		}
		if drop {
			c.drop = d
		} else {
			c.keep = d
		}
	}
	return c
}

func encodeCBOR(t testing.TB, s *runtime.Scheme, obj runtime.Object) []byte {
	enc, err := runtime.NewClientNegotiator(Serializer(s, false), fuzzGV).Encoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Encode(enc, obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cborSeeds(t testing.TB, s *runtime.Scheme) [][]byte {
	now := metav1.NewTime(time.Unix(1700000000, 0))
	mf := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
		Time: &now, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:data":{"f:a":{}}}`)}}
	gadget := func(name string, entries int) testkit.Gadget {
		g := testkit.Gadget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: "7", Labels: map[string]string{"a": "b"}},
			Spec: map[string]string{"k": "v"}}
		for range entries {
			g.ManagedFields = append(g.ManagedFields, mf[0])
		}
		return g
	}
	g := gadget("a", 2)
	g.SetGroupVersionKind(fuzzGV.WithKind("Gadget"))
	list := &testkit.GadgetList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []testkit.Gadget{gadget("b", 1), gadget("c", 0)}}
	list.SetGroupVersionKind(fuzzGV.WithKind("GadgetList"))
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", ManagedFields: mf}, Data: map[string]string{"a": "b"}}
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: mf},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	var out [][]byte
	for _, obj := range []runtime.Object{&g, list, cm, pods} {
		b := encodeCBOR(t, s, obj)
		out = append(out, b, b[:len(b)-1], b[3:]) // whole, truncated, without the self-described tag
	}
	// managedFields twice in one metadata: a duplicate key, which the
	// decoder refuses.
	twice := encodeCBOR(t, s, cm)
	at := bytes.Index(twice, []byte("managedFields"))
	end, err := skip(twice, at+len("managedFields"))
	if at < 1 || err != nil {
		t.Fatal("no managedFields in the ConfigMap's CBOR")
	}
	pair := twice[at-1 : end]
	m := bytes.Index(twice, []byte("metadata")) + len("metadata")
	dup := append(bytes.Clone(twice[:m]), twice[m]+1) // one pair more
	dup = append(append(dup, twice[m+1:end]...), pair...)
	out = append(out, append(dup, twice[end:]...))
	return out
}

// FuzzWithoutManaged decodes CBOR with and without managedFields, and
// wants what decoding with them and then dropping them gives: the same
// object, or both an error. Deliberate differences:
//
//   - An object whose managedFields do not decode (the decoder errs)
//     decodes without them, as the bytes with them cut out (cut by this
//     test, through the CBOR library) decode.
//   - Bytes the cut does not read (indefinite lengths, tags other than
//     the leading self-described one, nesting past 64) are decoded as they
//     are, managedFields and all: the informer drops them after. Bytes
//     without those lose their managedFields.
//   - The items of a v1 List, which stay raw bytes, lose their
//     managedFields as the items of a kind's list do.
//
// The bytes cut are well-formed CBOR when the bytes given are.
func FuzzWithoutManaged(f *testing.F) {
	s := fuzzScheme(f)
	for _, b := range cborSeeds(f, s) {
		f.Add(b)
	}
	c := newCodec(f, s)
	f.Fuzz(func(t *testing.T, data []byte) {
		keep, _, keepErr := c.keep.Decode(data, nil, nil)
		drop, _, dropErr := c.drop.Decode(data, nil, nil)
		if cut, ok := withoutManaged(data); ok && wellFormed(data) && !wellFormed(cut) {
			t.Fatalf("cut %x\nto %x, which is not well-formed CBOR", data, cut)
		}
		switch {
		case keepErr == nil:
			if dropErr != nil {
				t.Fatalf("%v; with managedFields %#v", dropErr, keep)
			}
			if simple(data) && hasManaged(t, drop) {
				t.Fatalf("managedFields left in %#v", drop)
			}
			strip(t, keep)
		case dropErr == nil:
			cut, ok := cutByLibrary(data)
			if !ok {
				t.Fatalf("decoded %#v; with managedFields: %v", drop, keepErr)
			}
			if keep, _, keepErr = c.keep.Decode(cut, nil, nil); keepErr != nil {
				t.Fatalf("decoded %#v; with managedFields: %v", drop, keepErr)
			}
			strip(t, keep)
		default:
			return
		}
		strip(t, drop)
		if !reflect.DeepEqual(drop, keep) {
			t.Fatalf("decoded\n%#v\nwant\n%#v", drop, keep)
		}
	})
}

// strip drops the managedFields of obj, or of its items. The items of a
// v1 List stay raw bytes, which lose their managedFields as an object's:
// CBOR bytes through the library, JSON ones (the decoder hands some items
// over as JSON) through encoding/json, which also puts them in one form
// for the comparison.
func strip(t *testing.T, obj runtime.Object) {
	each(t, obj, func(m metav1.Object) { m.SetManagedFields(nil) }, func(raw *runtime.RawExtension) {
		if cut, ok := cutByLibrary(raw.Raw); ok {
			raw.Raw = cut
			return
		}
		var m map[string]any
		if json.Unmarshal(raw.Raw, &m) != nil {
			return
		}
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
		if b, err := json.Marshal(m); err == nil {
			raw.Raw = b
		}
	})
}

func hasManaged(t *testing.T, obj runtime.Object) bool {
	found := false
	each(t, obj, func(m metav1.Object) { found = found || len(m.GetManagedFields()) > 0 }, func(*runtime.RawExtension) {})
	return found
}

func each(t *testing.T, obj runtime.Object, do func(metav1.Object), doRaw func(*runtime.RawExtension)) {
	if meta.IsListType(obj) {
		items, err := meta.GetItemsPtr(obj)
		if err != nil {
			t.Fatal(err)
		}
		if raw, ok := items.(*[]runtime.RawExtension); ok {
			for i := range *raw {
				doRaw(&(*raw)[i])
			}
			return
		}
		if err := meta.EachListItem(obj, func(o runtime.Object) error { each(t, o, do, doRaw); return nil }); err != nil {
			t.Fatal(err)
		}
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	do(m)
}

var selfDescribed = []byte{0xd9, 0xd9, 0xf7}

// wellFormed reports whether b is one well-formed CBOR data item.
func wellFormed(b []byte) bool { return cbor.Wellformed(b) == nil }

// simple is CBOR the cut reads: no indefinite lengths, no tags but the
// leading self-described one, nesting within the cut's bound.
var simpleMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{IndefLength: cbor.IndefLengthForbidden, TagsMd: cbor.TagsForbidden, MaxNestedLevels: maxDepth - 4}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}()

func simple(b []byte) bool { return simpleMode.Wellformed(bytes.TrimPrefix(b, selfDescribed)) == nil }

// libraryMode decodes maps as the API server's decoder does: duplicate
// keys are an error; byte strings may be keys.
var libraryMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF, MaxNestedLevels: 10000}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}()

// cutByLibrary returns data without metadata.managedFields, or of each
// item's, cut by decoding the maps around them with the CBOR library and
// encoding them again; false if they do not decode as maps.
func cutByLibrary(data []byte) ([]byte, bool) {
	tagged := bytes.HasPrefix(data, selfDescribed)
	obj, ok := cutMap(bytes.TrimPrefix(data, selfDescribed), true)
	if !ok {
		return nil, false
	}
	if tagged {
		obj = append(bytes.Clone(selfDescribed), obj...)
	}
	return obj, true
}

type rawMap = map[any]cbor.RawMessage

func cutMap(b []byte, list bool) ([]byte, bool) {
	var m rawMap
	if libraryMode.Unmarshal(b, &m) != nil {
		return nil, false
	}
	if raw, key, ok := lookup(m, "metadata"); ok {
		var md rawMap
		if libraryMode.Unmarshal(raw, &md) != nil {
			return nil, false
		}
		delete(md, "managedFields")
		delete(md, cbor.ByteString("managedFields"))
		m[key] = mustMarshal(md)
	}
	if raw, key, ok := lookup(m, "items"); ok && list {
		var items []cbor.RawMessage
		if libraryMode.Unmarshal(raw, &items) != nil {
			return nil, false
		}
		for i, item := range items {
			if items[i], ok = cutMap(item, false); !ok {
				return nil, false
			}
		}
		m[key] = mustMarshal(items)
	}
	return mustMarshal(m), true
}

// lookup returns the value of the text or byte string key name in m.
func lookup(m rawMap, name string) (cbor.RawMessage, any, bool) {
	for _, key := range []any{name, cbor.ByteString(name)} {
		if raw, ok := m[key]; ok {
			return raw, key, true
		}
	}
	return nil, nil, false
}

func mustMarshal(v any) []byte {
	b, err := cbor.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
