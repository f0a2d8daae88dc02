package admission

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/steadyctl/steady/object"
)

// typed makes and decodes values of T, a pointer to a struct such as
// *appsv1.Deployment, without a scheme: the request says the kind, and
// the JSON goes straight into the struct.
type typed[T object.Object] struct {
	elem reflect.Type
}

// newTyped checks T once, at construction, so that a handler of a type
// it cannot make fails every request with a clear message instead of
// panicking.
func newTyped[T object.Object](constructor string) (typed[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return typed[T]{}, fmt.Errorf("admission: %s: type %v is not a pointer to a struct", constructor, t)
	}
	return typed[T]{elem: t.Elem()}, nil
}

// typedReview is an AdmissionReview whose object decodes into T and old
// object into O in the one pass over the review, rather than being
// scanned again, copied and decoded in a pass of its own: the objects
// are most of a review. The fields shadow the embedded Request's raw
// ones, which are filled from the body afterwards.
type typedReview[T object.Object, O any] struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		Request
		Object    T `json:"object"`
		OldObject O `json:"oldObject"`
	} `json:"request"`
}

// decodeTyped decodes a review and its objects at once. It returns false
// for any review it does not take whole (one whose object does not
// decode into T, say); the caller then decodes the review with
// decodeReview, and the objects, if it needs them, with typed.object,
// which say what is wrong.
func decodeTyped[T object.Object, O any](body []byte) (req *Request, obj T, old O, ok bool) {
	raw, ok := locateObjects(body)
	if !ok {
		return nil, obj, old, false
	}
	var rv typedReview[T, O]
	if utiljson.Unmarshal(body, &rv) != nil || rv.Request == nil ||
		checkReview(rv.APIVersion, rv.Kind, &rv.Request.Request) != nil {
		return nil, obj, old, false
	}
	req = &rv.Request.Request
	req.Object.Raw, req.OldObject.Raw = bytes.Clone(raw.object), bytes.Clone(raw.oldObject)
	return req, rv.Request.Object, rv.Request.OldObject, true
}

// objects are a request's objects as decoded with its review; unset
// when decoded is false.
type objects[T object.Object] struct {
	object, oldObject T
	decoded           bool
}

// object returns the object of a request's field ("object" or
// "oldObject"), decoded along with the review if decoded says so, and
// from raw otherwise. A failure is a denial with code 400 naming the
// kind and what went wrong.
func (t typed[T]) object(req *Request, field string, raw []byte, obj T, decoded bool) (T, *Response) {
	if decoded && len(raw) > 0 { // a non-null value: obj is set
		return obj, nil
	}
	obj = reflect.New(t.elem).Interface().(T)
	err := errors.New("the request has none")
	if len(raw) > 0 {
		err = utiljson.Unmarshal(raw, obj)
	}
	if err != nil {
		resp := Errored(http.StatusBadRequest,
			fmt.Errorf("admission: %s: cannot decode %s into %T: %w", field, kindOf(req), obj, err))
		var zero T
		return zero, &resp
	}
	return obj, nil
}

// kindOf names the request's kind for messages, with its group and
// version: "apps/v1 Deployment" or "v1 Pod".
func kindOf(req *Request) string {
	k := req.Kind
	switch {
	case k.Kind == "":
		return "object"
	case k.Group == "":
		return k.Version + " " + k.Kind
	}
	return k.Group + "/" + k.Version + " " + k.Kind
}
