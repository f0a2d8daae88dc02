package testkit

import (
	"maps"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Gadget is a custom resource's Go type as kubebuilder generates it: JSON
// tags, a spec of strings, a status, no protobuf form. Tests register it
// under a group version of their own.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              map[string]string `json:"spec,omitempty"`
	Status            GadgetStatus      `json:"status,omitempty"`
}

// GadgetStatus is a Gadget's status.
type GadgetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// DeepCopyObject returns a copy of g that shares nothing with it.
func (g *Gadget) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = maps.Clone(g.Spec)
	return &out
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// DeepCopyObject returns a copy of l that shares nothing with it.
func (l *GadgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Gadget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Gadget)
	}
	return &out
}

// GadgetCRD is the definition of Gadgets in group, version v1, as CRD
// makes it: namespaced, any fields, a status subresource. Install it with
// InstallCRD or testenv.Environment.InstallCRDs.
func GadgetCRD(group string) *unstructured.Unstructured {
	return CRD(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"})
}

// GadgetScheme returns a scheme of client-go's built-in kinds and Gadget
// and GadgetList in gv, as an operator's main.go fills one.
func GadgetScheme(t testing.TB, gv schema.GroupVersion) *runtime.Scheme {
	t.Helper()
	return Scheme(t, gv, &Gadget{}, &GadgetList{})
}
