// Package webhook serves an operator's webhooks: the admission handlers of
// package admission, the CRD conversion handler of package conversion, or
// any http.Handler, each at its own path of one HTTPS server.
//
// The API server calls webhooks over TLS and checks the server's
// certificate against the caBundle of the webhook's configuration, so a
// Server always serves TLS. By default it reads tls.crt and tls.key from
// DefaultCertDir, where kubebuilder's manifests mount the Secret that
// cert-manager fills, and picks up renewed files without a restart. With
// WithCertificate it presents certificates the operator manages itself
// (certs.Authority: a CA kept in a Secret, its bundle injected into the
// webhook configurations and CRDs, rotated before expiry), so that no
// cert-manager is needed.
//
// Every request's body is bounded (WithMaxBodyBytes; 413 beyond it), and a
// handler that panics is answered 500 while the process goes on (the
// admission and conversion handlers turn their own panics into a denial or
// a failed conversion first, which the API server reports to the client).
// Each request is counted and timed per path under controller-runtime's
// metric names when WithMetrics is given (metrics.Webhook; the manager
// passes its own). Start serves until its context is done, then lets the
// requests in flight finish.
//
// A manager runs its webhook server on every replica, not only the
// leader (the API server calls whichever replica its Service picks), and
// keeps /readyz failing until the server listens and has a certificate.
// The builder registers typed webhooks at controller-runtime's paths:
//
//	err := builder.WebhookManagedBy(mgr, &samplev1.Foo{}).
//		WithValidator(fooValidator{}).
//		WithDefaulter(fooDefaulter{}).
//		Complete()
//
// serves /validate-sample-example-com-v1-foo and
// /mutate-sample-example-com-v1-foo, and /convert when the kind has
// several versions with a conversion.Hub among them.
//
// HTTP/2 is off unless WithHTTP2(true), as in kubebuilder's scaffold: the
// API server's webhook client speaks HTTP/1.1 just as well, and HTTP/2's
// stream-reset attacks (CVE-2023-44487) are then not this server's concern.
package webhook
