// Package v1 holds the webhooks of StaticSite tutorial.steady.dev/v1, the
// hub version: a defaulter that gives a site without a domain one under
// the operator's base domain, a validator that refuses a domain another
// site already has, and the conversion between v1alpha1 and v1.
//
// The defaulter and the validator need what a CRD's schema and its CEL
// rules cannot see: the operator's configuration, and the other
// StaticSites. They are registered for v1 alone: the API server converts
// a v1alpha1 request to v1 before calling them (the configurations'
// matchPolicy, Equivalent by default).
package v1
