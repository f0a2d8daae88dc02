// Package admission writes admission webhooks: http.Handlers that answer
// the API server's admission.k8s.io/v1 AdmissionReview requests.
// NewValidator serves a Validator, which judges objects of one Go type;
// NewDefaulter serves a Defaulter, which sets defaults on them and is
// answered with a JSON patch; NewHandler serves a raw Handler, for
// anything else. Package webhook serves the handlers over HTTPS at their
// paths, bounds request bodies and records metrics.
//
//	srv.Handle("/validate-apps-v1-deployment", admission.NewValidator[*appsv1.Deployment](replicasPolicy{}))
//	srv.Handle("/mutate-apps-v1-deployment", admission.NewDefaulter[*appsv1.Deployment](labelDefaults{}))
//
// A Validator or Defaulter gets the object already decoded into its type
// T; RequestFrom(ctx) gives the rest of the request: the operation, the
// user, and whether it is a dry run. A denial is an error: one that is or
// wraps an apierrors.APIStatus, such as apierrors.NewInvalid with the
// offending fields, reaches the client with its status; any other as 403
// Forbidden with its message. A handler that panics denies its request
// with code 500; the process goes on.
//
// # When no webhook is needed
//
// A webhook is a server to run, secure and keep available, and every
// write of the kinds it matches waits for it. Kubernetes has rules that
// run inside the API server: x-kubernetes-validations (CEL) in a CRD's
// schema, ValidatingAdmissionPolicy for any kind and
// MutatingAdmissionPolicy for defaults and other mutations, all GA by
// Kubernetes 1.36. Prefer them for checks on the object alone; a webhook
// is for decisions that need code or state outside the object.
//
// # Configuring the webhook
//
// The ValidatingWebhookConfiguration or MutatingWebhookConfiguration
// decides how the API server calls a handler. admissionReviewVersions must
// include v1: this package serves v1 only and answers any other version
// with 400. timeoutSeconds (1 to 30, default 10) bounds each call; the
// client's request waits for it, so keep handlers fast and do no slow
// calls in them. failurePolicy says what happens when the call fails,
// times out or is answered with anything but a review: Fail (the default)
// rejects the request, which keeps the policy airtight but stops every
// write the webhook matches while it is down, the webhook's own pods
// included, unless a namespaceSelector or objectSelector leaves them
// out; Ignore admits the request unchecked, which suits defaulting that
// is nice to have and checks that something else repeats.
//
// sideEffects must be None or NoneOnDryRun. A dry-run request (kubectl
// apply --dry-run=server) goes through admission but is never stored; a
// handler with effects outside the object, such as reserving a name in an
// external system, declares NoneOnDryRun and does nothing when
// req.IsDryRun(). A mutating webhook may be called again after other
// mutations (reinvocationPolicy IfNeeded), so Default must be idempotent.
//
// # Compared with controller-runtime
//
// The handlers are typed through generics alone: no runtime.Scheme, no
// Decoder. A typed handler decodes the review and its objects into T in
// one pass, case-sensitively as the API server does, where
// controller-runtime decodes the review, then each object again through
// the scheme's universal deserializer; the raw JSON stays in the Request
// all the same. Only admission.k8s.io/v1 is served. A request that is not a review
// gets an HTTP error status with a plain-text message, not a review
// without a UID, which the API server could not use. A defaulter's patch
// carries only what Default changed: the fields T does not know (a newer
// API version's, a CRD's preserved unknown fields) are kept and the typed
// round trip's normalisations (such as "creationTimestamp":null) are not
// sent; see NewDefaulter. Defaulters run on CREATE and UPDATE only, and
// the validator's DELETE gets the deleted object from the request's
// oldObject, as controller-runtime's does.
package admission
