package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeepCopySharesNothing checks that a copy of a cached Widget can be
// changed without changing the cached one.
func TestDeepCopySharesNothing(t *testing.T) {
	list := &WidgetList{Items: []Widget{{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Annotations: map[string]string{"k": "v"}, Finalizers: []string{"f"}},
		Spec:       WidgetSpec{Data: map[string]string{"v": "0"}},
		Status:     WidgetStatus{ObservedGeneration: 1},
	}}}
	c := list.DeepCopyObject().(*WidgetList)
	w := &c.Items[0]
	w.Annotations["k"] = "w"
	w.Finalizers[0] = "g"
	w.Spec.Data["v"] = "1"
	w.Status.ObservedGeneration = 2
	if orig := list.Items[0]; orig.Annotations["k"] != "v" || orig.Finalizers[0] != "f" || orig.Spec.Data["v"] != "0" || orig.Status.ObservedGeneration != 1 {
		t.Fatalf("changing the copy changed the original: %+v", orig)
	}
	one := list.Items[0].DeepCopyObject().(*Widget)
	one.Spec.Data["v"] = "2"
	if list.Items[0].Spec.Data["v"] != "0" {
		t.Fatal("changing a Widget's copy changed the original's spec.data")
	}
	if (*Widget)(nil).DeepCopy() != nil || (*WidgetList)(nil).DeepCopyObject() != nil {
		t.Fatal("a nil object's copy is not nil")
	}
}
