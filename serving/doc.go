// Package serving protects an operator's own HTTP endpoints — Prometheus
// metrics and pprof — the way kube-apiserver, kube-controller-manager and
// kube-scheduler protect theirs: over TLS, with every request
// authenticated by the API server and authorized against RBAC.
//
// An operator usually runs with broad permissions, and its endpoints
// reveal a lot (pprof hands out heap contents and can be made to burn
// CPU). So a request must carry a bearer token, which a TokenReview turns
// into a user, or a client certificate signed by a CA given to the server;
// and a SubjectAccessReview must then allow that user the request's verb
// on its path as a non-resource URL. A Prometheus scraper therefore needs
// a service account bound to a ClusterRole such as
//
//	rules:
//	- nonResourceURLs: ["/metrics"]
//	  verbs: ["get"]
//
// and the operator itself needs "create" on tokenreviews
// (authentication.k8s.io) and subjectaccessreviews
// (authorization.k8s.io), which is what the ClusterRole
// system:auth-delegator grants.
//
// A Filter wraps a handler with those checks. Requests without
// credentials, or with a token the API server does not accept, get 401
// Unauthorized; an authenticated user without permission gets 403
// Forbidden with the authorizer's reason; a review that cannot be made
// gets 500. Decisions are cached briefly per token and per user, path and
// verb, and concurrent requests with the same token wait for one review,
// so a scrape every few seconds costs the API server almost nothing.
//
// The Filter asks for its reviews through a Reviewer. NewReviewer's
// sends them to the API server over REST clients of the two review APIs
// alone, so that protecting an operator's endpoints does not link
// client-go's typed clientset and its scheme of every built-in kind; a
// test can hand the Filter a fake Reviewer instead.
//
// A Certificate serves the server's TLS certificate from a pair of files
// and picks up new files when they change, as cert-manager rotates a
// mounted Secret, without a restart. SelfSignedCertificate makes one at
// start for clusters that provide none; a scraper then has to skip
// verification, which is why it is the fallback and not the recommended
// setup.
package serving
