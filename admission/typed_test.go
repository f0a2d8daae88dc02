package admission_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/object"
)

// TestValidatorMisconfigured checks the handlers of validators that
// cannot work: they deny with 500 naming the mistake, and do not panic.
func TestValidatorMisconfigured(t *testing.T) {
	req := request(admissionv1.Create)
	req.Object = raw(t, deployment("web", 1))
	wantDenied(t, admit(t, admission.NewValidator[*appsv1.Deployment](nil), req),
		500, metav1.StatusReasonInternalError, "admission: NewValidator: nil Validator")
	wantDenied(t, admit(t, admission.NewValidator[object.Object](anyValidator{}), req),
		500, metav1.StatusReasonInternalError, "admission: NewValidator: type object.Object is not a pointer to a struct")
}

type anyValidator struct{}

func (anyValidator) ValidateCreate(context.Context, object.Object) (admission.Warnings, error) {
	return nil, nil
}
func (anyValidator) ValidateUpdate(context.Context, object.Object, object.Object) (admission.Warnings, error) {
	return nil, nil
}
func (anyValidator) ValidateDelete(context.Context, object.Object) (admission.Warnings, error) {
	return nil, nil
}

// unstructuredValidator denies objects without a team label.
type unstructuredValidator struct {
	anyValidatorFor[*unstructured.Unstructured]
}

func (unstructuredValidator) ValidateCreate(_ context.Context, u *unstructured.Unstructured) (admission.Warnings, error) {
	if u.GetLabels()["team"] == "" {
		return nil, fmt.Errorf("%s %s has no team label", u.GetKind(), u.GetName())
	}
	return nil, nil
}

type anyValidatorFor[T object.Object] struct{}

func (anyValidatorFor[T]) ValidateUpdate(context.Context, T, T) (admission.Warnings, error) {
	return nil, nil
}
func (anyValidatorFor[T]) ValidateDelete(context.Context, T) (admission.Warnings, error) {
	return nil, nil
}

// TestValidatorUnstructured checks that *unstructured.Unstructured works
// as T, for kinds without Go types.
func TestValidatorUnstructured(t *testing.T) {
	h := admission.NewValidator[*unstructured.Unstructured](unstructuredValidator{})
	req := request(admissionv1.Create)
	req.Object = raw(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"team":"a"}},"spec":{"size":9007199254740993}}`)
	if resp := admit(t, h, req); !resp.Allowed {
		t.Errorf("denied: %+v", resp.Result)
	}
	req.Object = raw(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	wantDenied(t, admit(t, h, req), 403, metav1.StatusReasonForbidden, "Widget w has no team label")
}

func TestDefaulterMisconfigured(t *testing.T) {
	req := request(admissionv1.Create)
	req.Object = raw(t, deployment("web", 1))
	wantDenied(t, admit(t, admission.NewDefaulter[*appsv1.Deployment](nil), req),
		500, metav1.StatusReasonInternalError, "admission: NewDefaulter: nil Defaulter")
}

// TestDecodeErrorNamesKind checks that a decode failure names the kind the
// request says, core or not.
func TestDecodeErrorNamesKind(t *testing.T) {
	for _, tc := range []struct {
		kind metav1.GroupVersionKind
		name string
	}{
		{metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, "v1 Pod"},
		{metav1.GroupVersionKind{}, "object"},
	} {
		req := request(admissionv1.Create)
		req.Kind, req.Object = tc.kind, raw(t, `{"spec":{"replicas":true}}`)
		resp := admit(t, admission.NewValidator[*appsv1.Deployment](&recordingValidator{}), req)
		want := "admission: object: cannot decode " + tc.name + " into *v1.Deployment: "
		if resp.Allowed || !strings.HasPrefix(resp.Result.Message, want) {
			t.Errorf("denied with %q, want %q...", resp.Result.Message, want)
		}
	}
}

// statusError is an apierrors.APIStatus that leaves the status' Status
// empty.
type statusError struct{}

func (statusError) Error() string { return "quota exceeded" }
func (statusError) Status() metav1.Status {
	return metav1.Status{Code: 429, Reason: metav1.StatusReasonTooManyRequests, Message: "quota exceeded"}
}

func TestCustomAPIStatus(t *testing.T) {
	req := request(admissionv1.Create)
	req.Object = raw(t, deployment("web", 1))
	resp := admit(t, admission.NewValidator[*appsv1.Deployment](&recordingValidator{err: statusError{}}), req)
	wantDenied(t, resp, 429, metav1.StatusReasonTooManyRequests, "quota exceeded")
}
