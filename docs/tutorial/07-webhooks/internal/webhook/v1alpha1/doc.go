// Package v1alpha1 holds the admission webhooks of StaticSite
// tutorial.steady.dev/v1alpha1: a defaulter that gives a site without a
// domain one under the operator's base domain, and a validator that
// refuses a domain another site already has.
//
// Both need what a CRD's schema and its CEL rules cannot see: the
// operator's configuration, and the other StaticSites.
package v1alpha1
