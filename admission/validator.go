package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/steadyctl/steady/object"
)

// Validator judges objects of kind T, a pointer type such as
// *appsv1.Deployment. Each method admits its request by returning a nil
// error and denies it by returning one: an error that is or wraps an
// apierrors.APIStatus (apierrors.NewInvalid with the offending fields,
// apierrors.NewForbidden, ...) is sent with its status; any other is sent
// as 403 Forbidden with its message. Warnings reach the client either
// way. RequestFrom(ctx) has the whole request: the user, the operation,
// whether it is a dry run.
type Validator[T object.Object] interface {
	// ValidateCreate judges obj, about to be created.
	ValidateCreate(ctx context.Context, obj T) (Warnings, error)
	// ValidateUpdate judges the change of oldObj, as stored, to obj.
	ValidateUpdate(ctx context.Context, oldObj, obj T) (Warnings, error)
	// ValidateDelete judges the deletion of obj, as stored.
	ValidateDelete(ctx context.Context, obj T) (Warnings, error)
}

// NewValidator returns an http.Handler that serves v as a validating
// webhook (see NewHandler for the HTTP side). CREATE calls
// ValidateCreate with the request's object, UPDATE ValidateUpdate with
// its old object and object, DELETE ValidateDelete with the old object,
// which is what the API server sends for a deletion. CONNECT is
// admitted; an operation the package does not know is denied with 400.
// An object that does not decode into T is denied with 400.
//
// T must be a pointer to a struct; a handler for any other type, or for
// a nil v, denies every request with 500 naming the mistake.
func NewValidator[T object.Object](v Validator[T], opts ...Option) http.Handler {
	t, err := newTyped[T]("NewValidator")
	if err == nil && v == nil {
		err = errors.New("admission: NewValidator: nil Validator")
	}
	if err != nil {
		return NewHandler(failing(err), opts...)
	}
	h := &validator[T]{typed: t, v: v}
	return newServer(h.decode, h.handle, opts)
}

type validator[T object.Object] struct {
	typed[T]
	v Validator[T]
}

func (h *validator[T]) decode(body []byte) (*Request, objects[T], error) {
	if req, obj, old, ok := decodeTyped[T, T](body); ok {
		return req, objects[T]{obj, old, true}, nil
	}
	req, err := decodeReview(body)
	return req, objects[T]{}, err
}

func (h *validator[T]) handle(ctx context.Context, req *Request, objs objects[T]) Response {
	switch req.Operation {
	case admissionv1.Create:
		obj, fail := h.object(req, "object", req.Object.Raw, objs.object, objs.decoded)
		if fail != nil {
			return *fail
		}
		return verdict(h.v.ValidateCreate(ctx, obj))
	case admissionv1.Update:
		oldObj, fail := h.object(req, "oldObject", req.OldObject.Raw, objs.oldObject, objs.decoded)
		if fail != nil {
			return *fail
		}
		obj, fail := h.object(req, "object", req.Object.Raw, objs.object, objs.decoded)
		if fail != nil {
			return *fail
		}
		return verdict(h.v.ValidateUpdate(ctx, oldObj, obj))
	case admissionv1.Delete:
		obj, fail := h.object(req, "oldObject", req.OldObject.Raw, objs.oldObject, objs.decoded)
		if fail != nil {
			return *fail
		}
		return verdict(h.v.ValidateDelete(ctx, obj))
	case admissionv1.Connect:
		return Allowed("")
	}
	return Errored(http.StatusBadRequest, fmt.Errorf("admission: unknown operation %q", req.Operation))
}
