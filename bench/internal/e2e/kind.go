package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
)

// Kind is the kind of object the benchmark's controllers reconcile: the
// -kind flag of the parent and of both children.
type Kind string

// The kinds.
const (
	// KindConfigMap is the built-in ConfigMap, served as protobuf.
	KindConfigMap Kind = "configmap"
	// KindCR is the custom resource v1alpha1.Widget, served as JSON only.
	KindCR Kind = "cr"
)

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case KindConfigMap, KindCR:
		return k, nil
	}
	return "", fmt.Errorf("-kind %q: want %q or %q", s, KindConfigMap, KindCR)
}

// The children's scheme is built at their start from the kind's own group
// version only (SchemeTypes "used"), or, in children built with the tag
// e2e_clientgoscheme, from client-go's scheme of every built-in kind plus
// Widget, as kubebuilder's main.go fills an operator's (SchemeTypes
// "client-go"). Linking client-go's scheme is a property of the binary, so
// it is chosen when the children are built (see the parent's -scheme).
var schemes = map[Kind]*runtime.Scheme{KindConfigMap: newScheme(KindConfigMap), KindCR: newScheme(KindCR)}

func newScheme(k Kind) *runtime.Scheme {
	s := runtime.NewScheme()
	err := addBuiltins(s, k)
	if err == nil && k == KindCR {
		err = v1alpha1.AddToScheme(s)
	}
	if err != nil {
		panic(err) // static registrations: cannot fail
	}
	return s
}

// Scheme returns the scheme that knows k's Go type (see SchemeTypes).
func (k Kind) Scheme() *runtime.Scheme { return schemes[k] }

// Resource returns k's resource, as in the API path.
func (k Kind) Resource() string {
	if k == KindCR {
		return v1alpha1.Resource.Resource
	}
	return "configmaps"
}

// Plural names k's objects in messages: "ConfigMaps" or "Widgets".
func (k Kind) Plural() string {
	if k == KindCR {
		return "Widgets"
	}
	return "ConfigMaps"
}

// NewObject returns an object of kind k that a writer creates: name in
// namespace, labelled as the benchmark's, carrying data (a ConfigMap's
// data, a Widget's spec.data).
func (k Kind) NewObject(namespace, name string, data map[string]string) runtime.Object {
	meta := metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": "bench-e2e"}}
	if k == KindCR {
		return &v1alpha1.Widget{ObjectMeta: meta, Spec: v1alpha1.WidgetSpec{Data: data}}
	}
	return &corev1.ConfigMap{ObjectMeta: meta, Data: data}
}

// NewList returns an empty list of k, to decode a LIST into.
func (k Kind) NewList() runtime.Object {
	if k == KindCR {
		return &v1alpha1.WidgetList{}
	}
	return &corev1.ConfigMapList{}
}

// LoadPatch returns the JSON merge patch of one load update: the written
// annotation set to stamp (Unix nanoseconds) and data[ValueKey] to value.
func (k Kind) LoadPatch(stamp int64, value string) []byte {
	data := map[string]string{ValueKey: value}
	patch := map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{WrittenAnnotation: strconv.FormatInt(stamp, 10)}},
	}
	if k == KindCR {
		patch["spec"] = map[string]any{"data": data}
	} else {
		patch["data"] = data
	}
	b, err := json.Marshal(patch)
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return b
}

// Data returns the data the controller reads of obj: a ConfigMap's data, a
// Widget's spec.data; nil for other objects.
func Data(obj metav1.Object) map[string]string {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return o.Data
	case *v1alpha1.Widget:
		return o.Spec.Data
	}
	return nil
}
