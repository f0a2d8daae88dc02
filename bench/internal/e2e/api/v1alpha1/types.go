package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is the benchmark's custom resource.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what a Widget asks for.
type WidgetSpec struct {
	// Data holds the same keys and payload as the ConfigMaps of the
	// benchmark's default mode: the value the load generator changes and
	// the filler.
	Data map[string]string `json:"data,omitempty"`
}

// WidgetStatus is a Widget's observed state. The benchmark's controller
// records what it observed in an annotation, as it does on ConfigMaps, so
// this stays empty; it is here because kubebuilder's kinds have one, served
// through the status subresource.
type WidgetStatus struct {
	// ObservedGeneration is the metadata.generation last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}
