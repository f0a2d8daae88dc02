package main

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/conversion/conversiontest"
	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

// TestConversionRoundTrip checks, with random v1alpha1 Foos, that
// v1alpha1 -> v1beta1 -> v1alpha1 loses nothing, as the conversion
// webhook will convert them; and, first, that the operator's scheme has
// one hub and v1alpha1 is Convertible (conversion.CheckKind).
func TestConversionRoundTrip(t *testing.T) {
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	conversiontest.RoundTrip(t, scheme, schema.GroupKind{Group: v1beta1.GroupName, Kind: "Foo"})
}

// TestConversionFromHub checks the other trip, which RoundTrip leaves out:
// a v1beta1 Foo read and written back by a v1alpha1 client keeps its
// image, through the annotation; the annotation does not leak into
// v1beta1; and neither conversion changes its source, which may be a
// cache's object.
func TestConversionFromHub(t *testing.T) {
	hub := &v1beta1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: "ns", Annotations: map[string]string{"team": "blue"}, Labels: map[string]string{"app": "x"}},
		Spec:       v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: "web", Replicas: ptr.To[int32](2), Image: "nginx:1.29"}},
		Status:     v1beta1.FooStatus{AvailableReplicas: 2, ObservedGeneration: 3},
	}
	before := hub.DeepCopy()
	var spoke v1alpha1.Foo
	if err := spoke.ConvertFrom(hub); err != nil {
		t.Fatal(err)
	}
	if spoke.Spec.DeploymentName != "web" || ptr.Deref(spoke.Spec.Replicas, 0) != 2 || spoke.Status.ObservedGeneration != 3 ||
		spoke.Annotations[v1alpha1.ImageAnnotation] != "nginx:1.29" || spoke.Annotations["team"] != "blue" || spoke.Labels["app"] != "x" {
		t.Fatalf("v1beta1 %+v converted to v1alpha1 %+v", hub, spoke)
	}
	spokeBefore := spoke.DeepCopy()
	var back v1beta1.Foo
	if err := spoke.ConvertTo(&back); err != nil {
		t.Fatal(err)
	}
	if !equalFoo(&back, before) {
		t.Errorf("v1beta1 -> v1alpha1 -> v1beta1:\n got %+v\nwant %+v", back, before)
	}
	if !equalFoo(hub, before) || spoke.Annotations[v1alpha1.ImageAnnotation] != spokeBefore.Annotations[v1alpha1.ImageAnnotation] {
		t.Errorf("a conversion changed its source")
	}

	// No image: no annotation, even one set by hand on the v1beta1 Foo,
	// which would become its image on the way back.
	hub.Spec.Deployment.Image = ""
	hub.Annotations[v1alpha1.ImageAnnotation] = "stale"
	if err := spoke.ConvertFrom(hub); err != nil {
		t.Fatal(err)
	}
	if _, ok := spoke.Annotations[v1alpha1.ImageAnnotation]; ok {
		t.Errorf("v1beta1 without image converted to v1alpha1 with annotation %q", spoke.Annotations[v1alpha1.ImageAnnotation])
	}
}

func equalFoo(a, b *v1beta1.Foo) bool {
	return equalSpec(a, b) && a.Status == b.Status && a.Name == b.Name &&
		len(a.Annotations) == len(b.Annotations) && a.Annotations["team"] == b.Annotations["team"] && a.Labels["app"] == b.Labels["app"]
}
