package v1alpha1

import (
	"fmt"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

// ImageAnnotation keeps, on a Foo read as v1alpha1, the v1beta1 field
// spec.deployment.image, which v1alpha1 has no place for: without it a
// v1alpha1 client that reads a Foo and writes it back would reset the
// image. The annotation is the conversion's: a value set on a v1beta1 Foo
// is dropped, and an empty one means no image.
const ImageAnnotation = "samplecontroller.steady.dev/v1beta1-image"

// ConvertTo converts foo to the hub, v1beta1: deploymentName and replicas
// move under spec.deployment, and the image comes back out of its
// annotation. foo is left as it was: it may be a cache's object.
func (foo *Foo) ConvertTo(dst conversion.Hub) error {
	hub, ok := dst.(*v1beta1.Foo)
	if !ok {
		return fmt.Errorf("foo v1alpha1 converts to *v1beta1.Foo, not %T", dst)
	}
	foo.ObjectMeta.DeepCopyInto(&hub.ObjectMeta)
	image := hub.Annotations[ImageAnnotation]
	delete(hub.Annotations, ImageAnnotation)
	if len(hub.Annotations) == 0 {
		hub.Annotations = nil // as if it had never been there
	}
	hub.Spec = v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{
		Name:     foo.Spec.DeploymentName,
		Replicas: clone(foo.Spec.Replicas),
		Image:    image,
	}}
	hub.Status = v1beta1.FooStatus(foo.Status)
	return nil
}

// ConvertFrom converts the hub to foo, keeping the image in ImageAnnotation.
func (foo *Foo) ConvertFrom(src conversion.Hub) error {
	hub, ok := src.(*v1beta1.Foo)
	if !ok {
		return fmt.Errorf("foo v1alpha1 converts from *v1beta1.Foo, not %T", src)
	}
	// The whole metadata, not only the annotations: package conversion
	// keeps the labels and annotations a conversion returns, so leaving
	// the others out would lose them.
	hub.ObjectMeta.DeepCopyInto(&foo.ObjectMeta)
	delete(foo.Annotations, ImageAnnotation)
	if image := hub.Spec.Deployment.Image; image != "" {
		if foo.Annotations == nil {
			foo.Annotations = map[string]string{}
		}
		foo.Annotations[ImageAnnotation] = image
	}
	foo.Spec = FooSpec{DeploymentName: hub.Spec.Deployment.Name, Replicas: clone(hub.Spec.Deployment.Replicas)}
	foo.Status = FooStatus(hub.Status)
	return nil
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
