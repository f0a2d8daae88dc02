// Package v1beta1 holds the Go types of Foo in samplecontroller.steady.dev/v1beta1,
// the version the API server stores and the operator reads: the hub that
// every other version converts through (see package conversion).
//
// It differs from v1alpha1 in its spec: what v1alpha1 calls deploymentName
// and replicas are name and replicas under spec.deployment, beside a field
// v1alpha1 lacks, the image the Deployment runs. Its status is the same.
package v1beta1
