package admit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestValidate(t *testing.T) {
	d, err := Deployment()
	if err != nil {
		t.Fatal(err)
	}
	if w, err := Validate(d); err != nil || len(w) != 0 {
		t.Fatalf("the fixture: warnings %q, error %v; want neither", w, err)
	}
	delete(d.Labels, NameLabel)
	d.Spec.Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{}
	if w, err := Validate(d); err != nil || len(w) != 2 {
		t.Errorf("no name label, no memory limit: warnings %q, error %v; want two warnings", w, err)
	}
	r := int32(MaxReplicas + 1)
	d.Spec.Replicas = &r
	if _, err := Validate(d); err == nil {
		t.Errorf("%d replicas: allowed", r)
	}

	old, _ := Deployment()
	d, _ = Deployment()
	d.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	if _, err := ValidateUpdate(old, d); err == nil {
		t.Error("a changed selector: allowed")
	}
}
