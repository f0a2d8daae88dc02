// Package v1alpha1 holds the Widget custom resource
// (bench.steady.dev/v1alpha1) of the end-to-end benchmark's custom-resource
// mode (bench/cmd/e2e -kind cr), written as kubebuilder would generate it:
// a typed Go struct with TypeMeta, ObjectMeta, Spec and Status, the
// deep-copy methods deepcopy-gen would produce (written by hand here, so
// that the bench module needs no code generator), the scheme registration,
// and the CustomResourceDefinition with its structural schema (CRD).
//
// A Widget's spec.data plays the part of a ConfigMap's data: the same keys,
// the same filler payload, so that the two kinds differ only in how the
// API server serves them (custom resources as JSON, never protobuf) and in
// how each framework handles a kind of the user's own scheme.
package v1alpha1
