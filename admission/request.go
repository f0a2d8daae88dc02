package admission

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
)

// Request is one admission request as the API server sends it in an
// admission.k8s.io/v1 AdmissionReview: the operation, the object and,
// for updates and deletes, the old object as raw JSON, the user who asked
// and whether the request is a dry run.
type Request struct {
	admissionv1.AdmissionRequest
}

// IsDryRun reports whether the request is a dry run: the API server will
// not persist the object, so a handler must not act on it either (see
// sideEffects in the package documentation).
func (r *Request) IsDryRun() bool { return r.DryRun != nil && *r.DryRun }

// requestKey is the context key of the Request being admitted.
type requestKey struct{}

// ContextWithRequest returns a copy of ctx that carries req. The handlers
// of this package call it before they call a Handler, Validator or
// Defaulter; tests of those call it to hand them a request.
func ContextWithRequest(ctx context.Context, req *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// RequestFrom returns the Request ctx carries and whether it carries one.
// A Validator or Defaulter calls it to learn who asked (UserInfo), for
// which operation, and whether the request is a dry run.
func RequestFrom(ctx context.Context) (*Request, bool) {
	req, ok := ctx.Value(requestKey{}).(*Request)
	return req, ok && req != nil
}
