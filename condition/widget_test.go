package condition_test

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// widgetGV is Widget's group version, where testkit.InstallCRD serves it
// (with its status subresource).
var widgetGV = schema.GroupVersion{Group: "test.steady.dev", Version: "v1"}
