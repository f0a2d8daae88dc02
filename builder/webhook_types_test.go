package builder_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/internal/testkit"
)

// Widget is stored as v1, the hub; v2 renames its fields, so every read
// as v2 goes through the conversion webhook.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec is v1's spec.
type WidgetSpec struct {
	Size  int64  `json:"size"`
	Color string `json:"color,omitempty"`
}

func (*Widget) Hub() {}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// WidgetV2 is the spoke.
type WidgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV2Spec `json:"spec,omitempty"`
}

// WidgetV2Spec is v2's spec.
type WidgetV2Spec struct {
	Replicas int64  `json:"replicas"`
	Paint    string `json:"paint,omitempty"`
}

func (w *WidgetV2) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// unlucky is a size the conversion refuses, to see its message surface.
const unlucky = 13

func (w *WidgetV2) ConvertTo(dst conversion.Hub) error {
	h := dst.(*Widget)
	if w.Spec.Replicas == unlucky {
		return fmt.Errorf("replicas %d is unlucky", unlucky)
	}
	h.ObjectMeta = w.ObjectMeta
	h.Spec = WidgetSpec{Size: w.Spec.Replicas, Color: w.Spec.Paint}
	return nil
}

func (w *WidgetV2) ConvertFrom(src conversion.Hub) error {
	h := src.(*Widget)
	if h.Spec.Size == unlucky {
		return fmt.Errorf("size %d is unlucky", unlucky)
	}
	w.ObjectMeta = h.ObjectMeta
	w.Spec = WidgetV2Spec{Replicas: h.Spec.Size, Paint: h.Spec.Color}
	return nil
}

// widgetScheme has client-go's kinds and Widget in group as v1 and v2.
func widgetScheme(group string) (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	v1, v2 := schema.GroupVersion{Group: group, Version: "v1"}, schema.GroupVersion{Group: group, Version: "v2"}
	s.AddKnownTypeWithName(v1.WithKind("Widget"), &Widget{})
	s.AddKnownTypeWithName(v2.WithKind("Widget"), &WidgetV2{})
	metav1.AddToGroupVersion(s, v1)
	metav1.AddToGroupVersion(s, v2)
	return s, nil
}

// widgetCRD serves Widgets in group as v1 (stored) and v2, converted by
// the webhook at url with caBundle empty: the certificates fill it in.
func widgetCRD(group, url string) *unstructured.Unstructured {
	crd := testkit.CRD(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"})
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	v2 := runtime.DeepCopyJSONValue(versions[0]).(map[string]any)
	v2["name"], v2["storage"] = "v2", false
	_ = unstructured.SetNestedSlice(crd.Object, append(versions, v2), "spec", "versions")
	_ = unstructured.SetNestedField(crd.Object, map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig":             map[string]any{"url": url},
		},
	}, "spec", "conversion")
	return crd
}

// widgetRules validates and defaults Widgets: a size may not be negative
// or shrink, sizes above 100 earn a warning, a missing color is "blue",
// and a Widget named "panic" makes the validator panic. It remembers the
// dry-run flag and operation of each request by object name.
type widgetRules struct {
	mu   sync.Mutex
	seen map[string][]string // name -> "CREATE dry-run", ...
}

func (r *widgetRules) note(ctx context.Context, name string) {
	req, ok := admission.RequestFrom(ctx)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string][]string{}
	}
	entry := string(req.Operation)
	if req.IsDryRun() {
		entry += " dry-run"
	}
	r.seen[name] = append(r.seen[name], entry)
}

func (r *widgetRules) requests(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seen[name], ", ")
}

func (r *widgetRules) check(w *Widget) (admission.Warnings, error) {
	if w.Name == "panic" {
		panic("a widget named panic")
	}
	var warn admission.Warnings
	if w.Spec.Size > 100 {
		warn = append(warn, fmt.Sprintf("size %d above 100 is slow", w.Spec.Size))
	}
	if w.Spec.Size < 0 {
		return warn, errors.New("spec.size must not be negative")
	}
	return warn, nil
}

func (r *widgetRules) ValidateCreate(ctx context.Context, w *Widget) (admission.Warnings, error) {
	r.note(ctx, w.Name)
	return r.check(w)
}

func (r *widgetRules) ValidateUpdate(ctx context.Context, old, w *Widget) (admission.Warnings, error) {
	r.note(ctx, w.Name)
	if w.Spec.Size < old.Spec.Size {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: w.GroupVersionKind().Group, Kind: "Widget"}, w.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, fmt.Sprintf("may not shrink from %d", old.Spec.Size))})
	}
	return r.check(w)
}

func (r *widgetRules) ValidateDelete(ctx context.Context, w *Widget) (admission.Warnings, error) {
	r.note(ctx, w.Name)
	return admission.Warnings{"deleting " + w.Name}, nil
}

func (r *widgetRules) Default(_ context.Context, w *Widget) error {
	if w.Spec.Color == "" {
		w.Spec.Color = "blue"
	}
	return nil
}
