package widget

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/conversion"
)

// V2alpha1 is Widget v2alpha1: ports are a map from name to number.
type V2alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V2alpha1Spec `json:"spec,omitempty"`
	Status            V1Status     `json:"status,omitempty"`
}

// V2alpha1Spec is the spec of Widget v2alpha1.
type V2alpha1Spec struct {
	Replicas *int32            `json:"replicas,omitempty"`
	Colour   string            `json:"colour,omitempty"`
	Ports    map[string]int32  `json:"ports,omitempty"`
	Size     resource.Quantity `json:"size,omitzero"`
}

// ConvertTo converts w to the hub, its ports sorted by name.
func (w *V2alpha1) ConvertTo(dst conversion.Hub) error {
	hub, ok := dst.(*V1)
	if !ok {
		return fmt.Errorf("widget: v2alpha1 converts to *V1, not %T", dst)
	}
	hub.ObjectMeta = w.ObjectMeta
	hub.Spec = V1Spec{Replicas: clonePtr(w.Spec.Replicas), Colour: w.Spec.Colour, Size: w.Spec.Size}
	for _, name := range slices.Sorted(maps.Keys(w.Spec.Ports)) {
		hub.Spec.Ports = append(hub.Spec.Ports, Port{Name: name, Number: w.Spec.Ports[name]})
	}
	hub.Status = w.Status
	return nil
}

// ConvertFrom converts the hub to w.
func (w *V2alpha1) ConvertFrom(src conversion.Hub) error {
	hub, ok := src.(*V1)
	if !ok {
		return fmt.Errorf("widget: v2alpha1 converts from *V1, not %T", src)
	}
	w.ObjectMeta = hub.ObjectMeta
	w.Spec = V2alpha1Spec{Replicas: clonePtr(hub.Spec.Replicas), Colour: hub.Spec.Colour, Size: hub.Spec.Size}
	if hub.Spec.Ports != nil {
		w.Spec.Ports = make(map[string]int32, len(hub.Spec.Ports))
		for _, p := range hub.Spec.Ports {
			w.Spec.Ports[p.Name] = p.Number
		}
	}
	w.Status = hub.Status
	return nil
}

// DeepCopyObject returns a copy of w that shares nothing with it.
func (w *V2alpha1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Replicas = clonePtr(w.Spec.Replicas)
	out.Spec.Ports = maps.Clone(w.Spec.Ports)
	out.Spec.Size = w.Spec.Size.DeepCopy()
	return &out
}
