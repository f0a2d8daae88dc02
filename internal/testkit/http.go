package testkit

import "net/http"

// RoundTripFunc is an http.RoundTripper that is a function: a test's
// wrapper of a rest.Config's transport that records or rewrites requests,
// or a transport that answers them itself.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip returns f(r).
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
