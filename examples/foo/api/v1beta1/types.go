package v1beta1

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

// Hub marks v1beta1 as the version of Foo that the others convert to and
// from (conversion.Hub): it is the stored version, and holds every field
// of every version.
func (*Foo) Hub() {}

// FooSpec is what the user asks for.
type FooSpec struct {
	// Deployment describes the Deployment the Foo owns.
	Deployment DeploymentSpec `json:"deployment"`
}

// DeploymentSpec describes the Deployment a Foo owns. The defaulting
// webhook fills in Replicas and Image when they are left out.
type DeploymentSpec struct {
	// Name names the Deployment, in the Foo's namespace. It cannot change
	// once the Foo exists.
	Name string `json:"name"`
	// Replicas is the Deployment's replica count, 0 to 10; nil means 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Image is what the Deployment's container runs; empty means
	// registry.k8s.io/pause.
	Image string `json:"image,omitempty"`
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
