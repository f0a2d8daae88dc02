package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeepCopySharesNothing checks that a copy of a cached object can be
// changed without changing the cached one.
func TestDeepCopySharesNothing(t *testing.T) {
	one := int32(1)
	list := &FooList{Items: []Foo{{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Finalizers: []string{"f"}, Labels: map[string]string{"k": "v"}},
		Spec:       FooSpec{DeploymentName: "d", Replicas: &one},
		Status:     FooStatus{AvailableReplicas: 1},
	}}}
	c := list.DeepCopyObject().(*FooList)
	*c.Items[0].Spec.Replicas = 3
	c.Items[0].Finalizers[0] = "g"
	c.Items[0].Labels["k"] = "w"
	c.Items[0].Status.AvailableReplicas = 3
	if orig := list.Items[0]; *orig.Spec.Replicas != 1 || orig.Finalizers[0] != "f" || orig.Labels["k"] != "v" || orig.Status.AvailableReplicas != 1 {
		t.Fatalf("changing the copy changed the original: %+v", orig)
	}
	if (*Foo)(nil).DeepCopy() != nil || (*FooList)(nil).DeepCopyObject() != nil {
		t.Fatal("a nil object's copy is not nil")
	}
}
