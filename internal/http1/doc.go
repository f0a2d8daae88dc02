// Package http1 is an HTTP/1.1 client transport that makes each exchange
// on the caller's goroutine.
//
// net/http's Transport hands every HTTP/1.1 request from the caller's
// goroutine to the connection's write loop and the response back from its
// read loop: three goroutines and several channel operations per request.
// For an operator whose reconcilers write one small object after another,
// those hand-offs cost more CPU than the bytes on the wire. A Transport of
// this package writes the request and reads the response's header on the
// goroutine that called RoundTrip, and the caller reads the body straight
// from the connection, as net/http already lets it do.
//
// A Transport sits on top of the *http.Transport client-go builds for a
// cluster (under client-go's authentication, impersonation and
// User-Agent wrappers, and under the config's own wrappers): it dials
// with that transport's dialer and TLS configuration, and hands the round
// tripper it wraps every request it does not handle itself. It handles
// plain requests with a known body length; watches, streams such as
// followed logs, upgrades, requests that go through a proxy, dialers that
// hide the socket (client-go's certificate rotation), and platforms where
// it cannot look at an idle socket go to net/http.
//
// What net/http's read loop does for an idle connection, a Transport does
// just before it reuses one: it looks at the socket without blocking, and
// at what crypto/tls holds unread (TLS 1.3 hides a close_notify alert's
// type until it is decrypted), and a connection the server has closed is
// dropped, not written to. Like the read loop it cannot see a close that
// is still on its way. It keeps net/http's other promises too: a request
// is cancelled with its context, responses are gzip-compressed and
// decompressed transparently unless the *http.Transport underneath
// disables compression, idle connections close after a timeout, and only
// a request that is safe to repeat (GET, HEAD) is sent again when a
// reused connection turns out to be dead. Bodies over 128 KiB go to
// net/http, which reads an early answer (429, 413) while it writes. It
// bounds a response's header as net/http does: to the *http.Transport's
// MaxResponseHeaderBytes (10 MiB if unset), and in time to its
// ResponseHeaderTimeout, if set.
//
// What it does not do: the *http.Transport's MaxConnsPerHost and
// DisableKeepAlives, and httptrace hooks (client-go's timings at -v=6 and
// above), none of which client-go sets for an API server's connections.
package http1
