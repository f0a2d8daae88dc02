package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StaticSiteSpec is the desired state of a StaticSite: what its owner asks
// for.
type StaticSiteSpec struct {
	// Domain is the host name the site is published under, such as
	// www.example.com. It cannot change once set.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="domain is immutable"
	Domain string `json:"domain"`

	// Pages maps file names (index.html, about.html) to their content.
	// +optional
	Pages map[string]string `json:"pages,omitempty"`

	// Replicas is the number of web servers serving the site.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// The types of a StaticSite's conditions.
const (
	// ConditionReady is True when every web server the site asks for
	// serves its current pages.
	ConditionReady = "Ready"
	// ConditionProgressing is True while the web servers are being
	// rolled out to the current spec, and False once they are, or when
	// the rollout is stuck (reason Stalled).
	ConditionProgressing = "Progressing"
)

// StaticSiteStatus is the observed state of a StaticSite: what the
// operator found.
type StaticSiteStatus struct {
	// Conditions say how the site is doing: Ready and Progressing.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// StaticSite is a web site of a few pages, published under a domain.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type StaticSite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StaticSiteSpec   `json:"spec"`
	Status StaticSiteStatus `json:"status,omitempty"`
}

// StaticSiteList is a list of StaticSites, as the API server returns it.
// +kubebuilder:object:root=true
type StaticSiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StaticSite `json:"items"`
}
