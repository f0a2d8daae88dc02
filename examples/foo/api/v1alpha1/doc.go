// Package v1alpha1 holds the Go types of the Foo custom resource
// (samplecontroller.steady.dev/v1alpha1), written by hand: the types, their
// deep-copy methods and the scheme registration that code generators would
// otherwise produce.
//
// A Foo asks for a Deployment: its spec names the Deployment and its replica
// count, and its status reports how many of those replicas are available.
package v1alpha1
