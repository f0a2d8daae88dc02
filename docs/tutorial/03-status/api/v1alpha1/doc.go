// Package v1alpha1 holds the Go types of the StaticSite custom resource,
// API group tutorial.steady.dev, version v1alpha1.
//
// A StaticSite is a web site made of a few pages, published under a
// domain: the operator serves its pages and keeps it running. The types
// carry controller-gen's markers (the +kubebuilder comments), from which
// `controller-gen object crd` writes zz_generated.deepcopy.go and the
// CustomResourceDefinition in config/crd/bases.
//
// +kubebuilder:object:generate=true
// +groupName=tutorial.steady.dev
package v1alpha1
