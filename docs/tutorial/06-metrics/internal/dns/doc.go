// Package dns is the StaticSite operator's view of the DNS provider that
// publishes each site's domain outside the cluster: Provider, the two
// calls the operator makes, and Memory, a provider kept in memory, which
// stands in for a real one in the tests and when trying the operator out.
// Instrumented counts a Provider's calls in a Prometheus metric.
//
// A real operator implements Provider with its provider's API client
// (Route 53, Cloud DNS, a PowerDNS server...). What matters to the
// operator is that the records live outside the cluster: no owner
// reference or garbage collector removes them when a StaticSite goes, so
// the operator removes them itself, behind a finalizer.
package dns
