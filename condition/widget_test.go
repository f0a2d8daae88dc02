package condition_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/testkit"
)

// Widget is a custom resource with status conditions and a status
// subresource, as an operator's own kind has them.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size int64 `json:"size,omitempty"`
}

type WidgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (w *Widget) DeepCopy() *Widget {
	out := *w
	out.ObjectMeta = *w.ObjectMeta.DeepCopy()
	out.Status.Conditions = slices.Clone(w.Status.Conditions) // Condition holds no pointers
	return &out
}

func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopy()
	}
	return &out
}

var widgetGV = schema.GroupVersion{Group: "test.steady.dev", Version: "v1"}

// widgetScheme is client-go's scheme with Widget added.
func widgetScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypes(widgetGV, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, widgetGV)
	return s
}

// installWidgetCRD installs Widget's CustomResourceDefinition, or keeps
// the one an earlier test installed, and waits until discovery lists
// widgets.
func installWidgetCRD(t *testing.T, cfg *rest.Config) {
	t.Helper()
	ctx := context.Background()
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	object := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + widgetGV.Group},
		"spec": map[string]any{
			"group": widgetGV.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": widgetGV.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": object,
						"status": map[string]any{"type": "object", "properties": map[string]any{
							"conditions": map[string]any{"type": "array", "items": object},
						}},
					},
				}},
			}},
		},
	}}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "widgets to be served", func() error {
		list, err := dc.ServerResourcesForGroupVersion(widgetGV.String())
		if err != nil {
			return err
		}
		for _, r := range list.APIResources {
			if r.Name == "widgets" {
				return nil
			}
		}
		return fmt.Errorf("%s lists no widgets", widgetGV)
	})
}
