package testkit

import (
	"maps"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
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

// GadgetCRD is the definition of Gadgets in group, version v1: namespaced,
// any fields, a status subresource. Install it with
// testenv.Environment.InstallCRDs.
func GadgetCRD(group string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
}

// GadgetScheme returns a scheme of client-go's built-in kinds and Gadget
// and GadgetList in gv, as an operator's main.go fills one.
func GadgetScheme(t testing.TB, gv schema.GroupVersion) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypeWithName(gv.WithKind("Gadget"), &Gadget{})
	s.AddKnownTypeWithName(gv.WithKind("GadgetList"), &GadgetList{})
	metav1.AddToGroupVersion(s, gv)
	return s
}
