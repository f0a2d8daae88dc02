package widget

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of Widget.
const Group = "convert.steady.test"

// Values of V1beta1Spec.Color that make V1beta1.ConvertTo fail.
const (
	ColorInvalid = "invalid" // ConvertTo returns an error
	ColorExplode = "explode" // ConvertTo panics
)

// GroupKind is Widget's group and kind.
var GroupKind = schema.GroupKind{Group: Group, Kind: "Widget"}

// Versions of Widget.
var (
	GroupVersionV1       = schema.GroupVersion{Group: Group, Version: "v1"}
	GroupVersionV1beta1  = schema.GroupVersion{Group: Group, Version: "v1beta1"}
	GroupVersionV2alpha1 = schema.GroupVersion{Group: Group, Version: "v2alpha1"}
)

// AddToScheme registers the three versions of Widget in s.
func AddToScheme(s *runtime.Scheme) {
	s.AddKnownTypeWithName(GroupVersionV1.WithKind("Widget"), &V1{})
	s.AddKnownTypeWithName(GroupVersionV1beta1.WithKind("Widget"), &V1beta1{})
	s.AddKnownTypeWithName(GroupVersionV2alpha1.WithKind("Widget"), &V2alpha1{})
}

// Scheme returns a scheme holding Widget and nothing else.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	AddToScheme(s)
	return s
}

// Port is a named port, the same in v1 and v1beta1.
type Port struct {
	Name   string `json:"name"`
	Number int32  `json:"number"`
}

// V1 is Widget v1, the hub.
type V1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V1Spec   `json:"spec,omitempty"`
	Status            V1Status `json:"status,omitempty"`
}

// V1Spec is the spec of Widget v1.
type V1Spec struct {
	Replicas *int32            `json:"replicas,omitempty"`
	Colour   string            `json:"colour,omitempty"`
	Ports    []Port            `json:"ports,omitempty"`
	Size     resource.Quantity `json:"size,omitzero"`
}

// V1Status is the status of Widget v1.
type V1Status struct {
	Ready              bool  `json:"ready,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Hub marks v1 as the hub.
func (*V1) Hub() {}

// DeepCopyObject returns a copy of w that shares nothing with it.
func (w *V1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Replicas = clonePtr(w.Spec.Replicas)
	out.Spec.Ports = append([]Port(nil), w.Spec.Ports...)
	out.Spec.Size = w.Spec.Size.DeepCopy()
	return &out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
