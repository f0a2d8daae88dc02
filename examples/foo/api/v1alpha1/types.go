package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Foo is the custom resource: a request for a Deployment.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is what the user asks for.
type FooSpec struct {
	// DeploymentName names the Deployment the Foo owns, in its namespace.
	DeploymentName string `json:"deploymentName"`
	// Replicas is the Deployment's replica count; nil means 1.
	Replicas *int32 `json:"replicas,omitempty"`
}

// FooStatus is what the operator observed.
type FooStatus struct {
	// AvailableReplicas is copied from the Deployment's status.
	AvailableReplicas int32 `json:"availableReplicas"`
	// ObservedGeneration is the generation of the spec the operator last
	// acted on: readers compare it with metadata.generation to know whether
	// the status is about the current spec.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// FooList is a list of Foos, as the API server returns it.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Foo `json:"items"`
}
