// Package leases reads and writes the coordination.k8s.io/v1 Leases of one
// namespace, for the parts of steady that coordinate replicas through
// them: the manager's leader election and the members of a shard ring.
//
// A Client is a REST client of coordination.k8s.io/v1 alone (see
// internal/apiclient), not client-go's typed clientset: a program that
// elects a leader or joins a ring does not link every built-in API group
// for it. It speaks protobuf, accepting JSON, unless the config it is made
// from names a content type.
//
// Errors are the API server's status errors, wrapped with the Lease or
// namespace they are about, so apimachinery's errors.IsNotFound,
// IsConflict, IsForbidden and the like read them.
package leases
