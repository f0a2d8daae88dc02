package object_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/object"
)

func TestFinalizers(t *testing.T) {
	cached := configMap("ns", "a", "")
	cached.Finalizers = make([]string, 1, 4) // room to append in place
	cached.Finalizers[0] = "example.com/other"
	obj := cached.DeepCopy()
	obj.Finalizers = cached.Finalizers // a shallow copy, sharing the array

	if object.HasFinalizer(obj, "example.com/mine") {
		t.Fatal("HasFinalizer before adding")
	}
	if !object.AddFinalizer(obj, "example.com/mine") || object.AddFinalizer(obj, "example.com/mine") {
		t.Fatal("AddFinalizer: want true, then false")
	}
	if !object.HasFinalizer(obj, "example.com/mine") || !slices.Equal(obj.Finalizers, []string{"example.com/other", "example.com/mine"}) {
		t.Fatalf("finalizers %v", obj.Finalizers)
	}
	if got := cached.Finalizers[:cap(cached.Finalizers)][1]; got != "" {
		t.Fatalf("AddFinalizer wrote %q into the array the original shares", got)
	}
	obj.Finalizers = append(obj.Finalizers, "example.com/mine") // a duplicate
	if !object.RemoveFinalizer(obj, "example.com/mine") || object.RemoveFinalizer(obj, "example.com/mine") {
		t.Fatal("RemoveFinalizer: want true, then false")
	}
	if !slices.Equal(obj.Finalizers, []string{"example.com/other"}) || object.HasFinalizer(obj, "example.com/mine") {
		t.Fatalf("after RemoveFinalizer: %v", obj.Finalizers)
	}
	if object.RemoveFinalizer(&corev1.ConfigMap{}, "example.com/mine") {
		t.Fatal("RemoveFinalizer of an object without finalizers reported a change")
	}
}
