// Package v1 holds the Go types of the StaticSite custom resource, API
// group tutorial.steady.dev, version v1: the version the API server
// stores, and the hub that every other version converts to and from.
//
// A StaticSite is a web site made of a few pages, published under a
// domain: the operator serves its pages and keeps it running. v1 differs
// from v1alpha1 in one field: its pages are a list of named pages rather
// than a map, as the Kubernetes API conventions ask of lists of named
// subobjects.
//
// +kubebuilder:object:generate=true
// +groupName=tutorial.steady.dev
package v1
