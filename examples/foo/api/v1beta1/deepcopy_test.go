package v1beta1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeepCopySharesNothing checks that a copy of a cached object can be
// changed without changing the cached one.
func TestDeepCopySharesNothing(t *testing.T) {
	one := int32(1)
	list := &FooList{Items: []Foo{{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Finalizers: []string{"f"}, Annotations: map[string]string{"k": "v"}},
		Spec:       FooSpec{Deployment: DeploymentSpec{Name: "d", Replicas: &one, Image: "i"}},
		Status:     FooStatus{AvailableReplicas: 1},
	}}}
	c := list.DeepCopyObject().(*FooList)
	*c.Items[0].Spec.Deployment.Replicas = 3
	c.Items[0].Spec.Deployment.Image = "j"
	c.Items[0].Finalizers[0] = "g"
	c.Items[0].Annotations["k"] = "w"
	orig := list.Items[0]
	if *orig.Spec.Deployment.Replicas != 1 || orig.Spec.Deployment.Image != "i" || orig.Finalizers[0] != "f" || orig.Annotations["k"] != "v" {
		t.Fatalf("changing the copy changed the original: %+v", orig)
	}
	if (*Foo)(nil).DeepCopy() != nil || (*FooList)(nil).DeepCopyObject() != nil {
		t.Fatal("a nil object's copy is not nil")
	}
}
