package widget

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/conversion"
)

// V1beta1 is Widget v1beta1: replicas is not a pointer, colour is spelt
// color, and the status has no observedGeneration.
type V1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V1beta1Spec   `json:"spec,omitempty"`
	Status            V1beta1Status `json:"status,omitempty"`
}

// V1beta1Spec is the spec of Widget v1beta1.
type V1beta1Spec struct {
	Replicas int32             `json:"replicas"`
	Color    string            `json:"color,omitempty"`
	Ports    []Port            `json:"ports,omitempty"`
	Size     resource.Quantity `json:"size,omitzero"`
}

// V1beta1Status is the status of Widget v1beta1.
type V1beta1Status struct {
	Ready bool `json:"ready,omitempty"`
}

// ConvertTo converts w to the hub, failing on purpose for ColorInvalid and
// ColorExplode.
func (w *V1beta1) ConvertTo(dst conversion.Hub) error {
	hub, ok := dst.(*V1)
	if !ok {
		return fmt.Errorf("widget: v1beta1 converts to *V1, not %T", dst)
	}
	switch w.Spec.Color {
	case ColorInvalid:
		return errors.New("color \"invalid\" is not a colour")
	case ColorExplode:
		panic("the color exploded")
	}
	hub.ObjectMeta = w.ObjectMeta
	replicas := w.Spec.Replicas
	hub.Spec = V1Spec{Replicas: &replicas, Colour: w.Spec.Color, Ports: w.Spec.Ports, Size: w.Spec.Size}
	hub.Status = V1Status{Ready: w.Status.Ready}
	return nil
}

// ConvertFrom converts the hub to w.
func (w *V1beta1) ConvertFrom(src conversion.Hub) error {
	hub, ok := src.(*V1)
	if !ok {
		return fmt.Errorf("widget: v1beta1 converts from *V1, not %T", src)
	}
	w.ObjectMeta = hub.ObjectMeta
	w.Spec = V1beta1Spec{Color: hub.Spec.Colour, Ports: hub.Spec.Ports, Size: hub.Spec.Size}
	if hub.Spec.Replicas != nil {
		w.Spec.Replicas = *hub.Spec.Replicas
	}
	w.Status = V1beta1Status{Ready: hub.Status.Ready}
	return nil
}

// DeepCopyObject returns a copy of w that shares nothing with it.
func (w *V1beta1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Ports = append([]Port(nil), w.Spec.Ports...)
	out.Spec.Size = w.Spec.Size.DeepCopy()
	return &out
}
