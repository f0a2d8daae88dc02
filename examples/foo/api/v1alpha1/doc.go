// Package v1alpha1 holds the Go types of the Foo custom resource
// (samplecontroller.steady.dev/v1alpha1), written by hand: the types, their
// deep-copy methods and the scheme registration that code generators would
// otherwise produce.
//
// A Foo asks for a Deployment: its spec names the Deployment and its replica
// count, and its status reports how many of those replicas are available.
//
// v1alpha1 is the older of Foo's two versions, deprecated: the API server
// stores Foos as v1beta1, the hub, and converts them through the operator's
// conversion webhook whenever a client reads or writes v1alpha1. Foo here
// is a conversion.Convertible (conversion.go); the image v1beta1 adds is
// kept in an annotation, so that nothing is lost on the way.
package v1alpha1
