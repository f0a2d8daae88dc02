package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/steadyctl/steady/object"
)

// Defaulter sets defaults on objects of kind T, a pointer type such as
// *appsv1.Deployment, by changing obj in place. An error denies the
// request as a Validator's does. RequestFrom(ctx) has the whole request.
type Defaulter[T object.Object] interface {
	// Default sets the defaults of obj, about to be created or updated.
	Default(ctx context.Context, obj T) error
}

// NewDefaulter returns an http.Handler that serves d as a mutating
// webhook (see NewHandler for the HTTP side). On CREATE and UPDATE it
// decodes the request's object into T, calls Default, and answers with a
// JSON patch from the object the API server sent to the defaulted one;
// with no patch when Default changed nothing. Other operations are
// admitted untouched. An object that does not decode into T is denied
// with 400.
//
// The patch carries only what Default changed. Decoding into T and
// encoding again loses fields T does not know (a newer API version's, or
// a CRD's preserved unknown fields) and normalises others (it writes
// "creationTimestamp":null, drops empty values); none of that is patched.
// Unknown fields are kept, except inside an array whose length Default
// changed or a value whose type it changed: those are replaced whole by
// what T encodes. Numbers are kept exactly, whatever their size.
//
// T must be a pointer to a struct; a handler for any other type, or for
// a nil d, denies every request with 500 naming the mistake.
func NewDefaulter[T object.Object](d Defaulter[T], opts ...Option) http.Handler {
	t, err := newTyped[T]("NewDefaulter")
	if err == nil && d == nil {
		err = errors.New("admission: NewDefaulter: nil Defaulter")
	}
	if err != nil {
		return NewHandler(failing(err), opts...)
	}
	h := &defaulter[T]{typed: t, d: d}
	return newServer(h.decode, h.handle, opts)
}

type defaulter[T object.Object] struct {
	typed[T]
	d Defaulter[T]
}

// decode decodes the object with the review. The old object, which
// Default does not see, is only skipped over.
func (h *defaulter[T]) decode(body []byte) (*Request, objects[T], error) {
	if req, obj, _, ok := decodeTyped[T, json.RawMessage](body); ok {
		return req, objects[T]{object: obj, decoded: true}, nil
	}
	req, err := decodeReview(body)
	return req, objects[T]{}, err
}

func (h *defaulter[T]) handle(ctx context.Context, req *Request, objs objects[T]) Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return Allowed("")
	}
	obj, fail := h.object(req, "object", req.Object.Raw, objs.object, objs.decoded)
	if fail != nil {
		return *fail
	}
	base, err := json.Marshal(obj)
	if err != nil {
		return Errored(http.StatusInternalServerError, fmt.Errorf("admission: encoding %T: %w", obj, err))
	}
	if err := h.d.Default(ctx, obj); err != nil {
		return verdict(nil, err)
	}
	defaulted, err := json.Marshal(obj)
	if err != nil {
		return Errored(http.StatusInternalServerError, fmt.Errorf("admission: encoding defaulted %T: %w", obj, err))
	}
	if bytes.Equal(base, defaulted) {
		return Allowed("")
	}
	patch, err := defaultingPatch(req.Object.Raw, base, defaulted)
	if err != nil {
		return Errored(http.StatusInternalServerError, fmt.Errorf("admission: patch for %s: %w", kindOf(req), err))
	}
	r := Allowed("")
	r.Patch = patch
	return r
}

// defaultingPatch returns the JSON patch from raw, as the API server
// sent it, to defaulted, keeping only operations where defaulted differs
// from base, raw's typed round trip; nil when none is left.
func defaultingPatch(raw, base, defaulted []byte) ([]byte, error) {
	var docs [3]any
	for i, b := range [][]byte{raw, base, defaulted} {
		var err error
		if docs[i], err = decodeJSON(b); err != nil {
			return nil, err
		}
	}
	d := differ{withBase: true}
	d.walk("", docs[0], docs[2], docs[1], true)
	if len(d.ops) == 0 {
		return nil, nil
	}
	return encodePatch(d.ops)
}
