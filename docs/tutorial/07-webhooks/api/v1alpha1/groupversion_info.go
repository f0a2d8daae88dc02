package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of the types in this package.
var GroupVersion = schema.GroupVersion{Group: "tutorial.steady.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder collects the functions that add this package's types
	// to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds StaticSite and StaticSiteList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the kinds of this group version, and the
// options types (ListOptions, DeleteOptions, ...) clients send with them.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &StaticSite{}, &StaticSiteList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
