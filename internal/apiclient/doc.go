// Package apiclient makes REST clients of single built-in API group
// versions, each with a scheme of its own that holds only that group
// version's types and the meta types its answers use.
//
// The manager needs a few built-in kinds for itself: Leases for leader
// election and sharding, Events for its recorders, TokenReviews and
// SubjectAccessReviews for secure serving, Secrets for webhook
// certificates. client-go's typed clients would serve, but each of them
// imports client-go's kubernetes/scheme, which registers every built-in
// group at start, and its clientset links every typed client: several
// MiB of binary and heap in every operator, whether or not its own code
// uses them. A client from this package costs the one group version it
// speaks.
//
// Errors are client-go's: a status from the API server reads with
// apimachinery's errors.IsNotFound and the like.
package apiclient
