package cborwire_test

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/internal/cborwire"
	"github.com/steadyctl/steady/internal/testkit"
)

func managedThing(name string, entries int) *testkit.Gadget {
	t := &testkit.Gadget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "u-" + "name", ResourceVersion: "7",
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}, Finalizers: []string{"f"},
		CreationTimestamp: metav1.NewTime(time.Unix(1700000000, 0))},
		Spec: map[string]string{"k": "v"}}
	for i := range entries {
		now := metav1.NewTime(time.Unix(1700000000+int64(i), 0))
		t.ManagedFields = append(t.ManagedFields, metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "cborwire.steady.dev/v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:k":{}}}`)})
	}
	return t
}

// cborRoundTrip encodes obj as the API server does and decodes it into
// into with the Serializer of dropManagedFields.
func cborRoundTrip(t *testing.T, s *runtime.Scheme, obj, into runtime.Object, dropManagedFields bool) runtime.Object {
	t.Helper()
	enc, err := runtime.NewClientNegotiator(cborwire.Serializer(s, false), thingGV).Encoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := runtime.Encode(enc, obj)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := runtime.NewClientNegotiator(cborwire.Serializer(s, dropManagedFields), thingGV).Decoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := dec.Decode(data, nil, into)
	if err != nil {
		t.Fatalf("decode (drop %t): %v", dropManagedFields, err)
	}
	return out
}

// A Serializer that drops managedFields decodes objects and lists' items
// as the one that keeps them does, without managedFields; objects without
// any come out the same.
func TestSerializerDropsManagedFields(t *testing.T) {
	s := scheme(map[string]runtime.Object{"Gadget": &testkit.Gadget{}, "GadgetList": &testkit.GadgetList{}})
	for _, entries := range []int{0, 1, 3} {
		obj := managedThing("a", entries)
		obj.SetGroupVersionKind(thingGV.WithKind("Gadget"))
		kept := cborRoundTrip(t, s, obj, &testkit.Gadget{}, false).(*testkit.Gadget)
		if len(kept.ManagedFields) != entries {
			t.Fatalf("kept %d managedFields entries, want %d", len(kept.ManagedFields), entries)
		}
		dropped := cborRoundTrip(t, s, obj, &testkit.Gadget{}, true).(*testkit.Gadget)
		kept.ManagedFields = nil
		if !reflect.DeepEqual(dropped, kept) {
			t.Fatalf("%d entries: dropping decoded\n%#v\nwant\n%#v", entries, dropped, kept)
		}
	}

	list := &testkit.GadgetList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}}
	for i, entries := range []int{2, 0, 1} {
		list.Items = append(list.Items, *managedThing(string(rune('a'+i)), entries))
	}
	list.SetGroupVersionKind(thingGV.WithKind("GadgetList"))
	kept := cborRoundTrip(t, s, list, &testkit.GadgetList{}, false).(*testkit.GadgetList)
	dropped := cborRoundTrip(t, s, list, &testkit.GadgetList{}, true).(*testkit.GadgetList)
	for i := range kept.Items {
		kept.Items[i].ManagedFields = nil
	}
	if len(dropped.Items) != 3 || !reflect.DeepEqual(dropped, kept) {
		t.Fatalf("dropping decoded the list\n%#v\nwant\n%#v", dropped, kept)
	}
}

// Bytes that are not a well-formed object are decoded as they are, so
// the error is the CBOR decoder's own.
func TestSerializerDropsNothingFromBrokenCBOR(t *testing.T) {
	s := scheme(map[string]runtime.Object{"Gadget": &testkit.Gadget{}})
	enc, err := runtime.NewClientNegotiator(cborwire.Serializer(s, false), thingGV).Encoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj := managedThing("a", 1)
	obj.SetGroupVersionKind(thingGV.WithKind("Gadget"))
	data, err := runtime.Encode(enc, obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, len(data) / 2, len(data) - 1} {
		var errs [2]error
		for i, drop := range []bool{false, true} {
			dec, err := runtime.NewClientNegotiator(cborwire.Serializer(s, drop), thingGV).Decoder(runtime.ContentTypeCBOR, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _, errs[i] = dec.Decode(data[:cut], nil, &testkit.Gadget{})
		}
		if errs[0] == nil || errs[1] == nil || errs[0].Error() != errs[1].Error() {
			t.Fatalf("%d of %d bytes: errors %v and %v, want the same", cut, len(data), errs[0], errs[1])
		}
	}
}
