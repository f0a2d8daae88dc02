package admission

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Response is a handler's verdict on a Request. The handlers of this
// package send it back in an AdmissionReview with the request's UID.
type Response struct {
	// Allowed admits the request; false denies it.
	Allowed bool
	// Result explains the verdict. For a denial the API server hands its
	// code, reason, message and details to the client, the message
	// prefixed with the webhook's name; for an admission it is optional.
	Result *metav1.Status
	// Patch is a JSON patch (RFC 6902) the API server applies to the
	// object before it stores it; nil for none. It is sent with patchType
	// "JSONPatch" when the request is allowed; only a mutating webhook may
	// send one (the API server fails a validating webhook's call that does).
	Patch []byte
	// Warnings are shown to the client (kubectl prints them) whether the
	// request is admitted or not. Keep each one short.
	Warnings []string
}

// Allowed returns a Response that admits the request. A non-empty msg is
// sent as the result's message with code 200; an empty one sends no
// result at all, which is all the API server needs.
func Allowed(msg string) Response {
	if msg == "" {
		return Response{Allowed: true}
	}
	return Response{Allowed: true, Result: &metav1.Status{Status: metav1.StatusSuccess, Code: http.StatusOK, Message: msg}}
}

// Denied returns a Response that denies the request with code 403, reason
// Forbidden and message msg.
func Denied(msg string) Response {
	return Response{Result: &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
		Reason: metav1.StatusReasonForbidden, Message: msg}}
}

// Errored returns a Response that denies the request because it could not
// be judged: code is an HTTP status code (400 for a request that makes no
// sense, 500 for a failure of the webhook), the reason is the one the API
// server uses with that code, and the message is err's.
func Errored(code int32, err error) Response {
	msg := http.StatusText(int(code))
	if err != nil {
		msg = err.Error()
	}
	return Response{Result: &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reasonFor(code), Message: msg}}
}

// reasonFor returns the reason the API server gives a status of code, so
// that a client's apierrors.IsBadRequest and the like work on a denial.
func reasonFor(code int32) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		return metav1.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	return metav1.StatusReasonUnknown
}

// verdict turns what a Validator or Defaulter returned into a Response:
// nil admits; an error that is or wraps an apierrors.APIStatus denies with
// its status (apierrors.NewInvalid carries the offending fields to the
// client); any other error denies with 403 Forbidden and its message.
// Warnings go along either way.
func verdict(warnings Warnings, err error) Response {
	var r Response
	switch st := apierrors.APIStatus(nil); {
	case err == nil:
		r = Allowed("")
	case errors.As(err, &st):
		s := st.Status()
		if s.Status == "" {
			s.Status = metav1.StatusFailure
		}
		r = Response{Result: &s}
	default:
		r = Denied(err.Error())
	}
	r.Warnings = warnings
	return r
}

// Warnings are messages a Validator returns for the client to show, such
// as a field's deprecation, whether or not the request is admitted.
type Warnings []string

// Handler judges admission requests of any kind, in any way: the raw
// interface beneath Validator and Defaulter, served by NewHandler. A Handle that
// panics denies the request with code 500.
type Handler interface {
	Handle(ctx context.Context, req *Request) Response
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, req *Request) Response

// Handle calls f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) Response { return f(ctx, req) }
