package testkit

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// CRD is the CustomResourceDefinition of gvk's kind in its group and
// version: namespaced, its plural the kind in lower case plus "s", any
// fields kept (x-kubernetes-preserve-unknown-fields), a status
// subresource. Install it with InstallCRD or
// testenv.Environment.InstallCRDs.
func CRD(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	singular := strings.ToLower(gvk.Kind)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": singular + "s." + gvk.Group},
		"spec": map[string]any{
			"group": gvk.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": singular + "s", "singular": singular, "kind": gvk.Kind, "listKind": gvk.Kind + "List"},
			"versions": []any{map[string]any{
				"name": gvk.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
}

// InstallCRD installs CRD(gvk) on Env's control plane, or keeps the one an
// earlier test installed, and returns once the API server serves it and
// lists it in discovery. Like Env it skips the test under go test -short.
func InstallCRD(t testing.TB, gvk schema.GroupVersionKind) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Env(t).InstallCRDs(ctx, CRD(gvk)); err != nil {
		t.Fatal(err)
	}
}

// Scheme returns a scheme of client-go's built-in kinds and of types in
// gv, each the kind its Go type names (a *Gadget is kind Gadget), as an
// operator's main.go fills one.
func Scheme(t testing.TB, gv schema.GroupVersion, types ...runtime.Object) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypes(gv, types...)
	metav1.AddToGroupVersion(s, gv)
	return s
}
