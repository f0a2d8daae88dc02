package v1alpha1

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// CRD returns Widget's CustomResourceDefinition (apiextensions.k8s.io/v1),
// with the structural schema kubebuilder's controller-gen would write for
// the types of this package and the status subresource. It is unstructured
// so that the bench module needs no apiextensions Go types to install it
// (see testenv.Environment.InstallCRDs).
func CRD() *unstructured.Unstructured {
	object := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": Resource.Resource + "." + GroupName},
		"spec": map[string]any{
			"group": GroupName, "scope": "Namespaced",
			"names": map[string]any{"plural": Resource.Resource, "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": SchemeGroupVersion.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": object(map[string]any{
					"apiVersion": map[string]any{"type": "string"},
					"kind":       map[string]any{"type": "string"},
					"metadata":   map[string]any{"type": "object"},
					"spec": object(map[string]any{
						"data": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
					}),
					"status": object(map[string]any{
						"observedGeneration": map[string]any{"type": "integer", "format": "int64"},
					}),
				})},
			}},
		},
	}}
}
