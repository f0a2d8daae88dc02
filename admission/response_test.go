package admission_test

import (
	"context"
	"errors"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
)

func TestDryRun(t *testing.T) {
	for _, dry := range []*bool{nil, ptr.To(false), ptr.To(true)} {
		req := request(admissionv1.Create)
		req.DryRun = dry
		var got *bool
		h := admission.NewHandler(admission.HandlerFunc(func(ctx context.Context, r *admission.Request) admission.Response {
			if fromCtx, ok := admission.RequestFrom(ctx); ok {
				got = ptr.To(fromCtx.IsDryRun())
			}
			return admission.Allowed("")
		}))
		admit(t, h, req)
		if want := dry != nil && *dry; got == nil || *got != want {
			t.Errorf("dryRun %v: IsDryRun %v, want %v", ptr.Deref(dry, false), got, want)
		}
	}
}

func TestRequestFromEmptyContext(t *testing.T) {
	if r, ok := admission.RequestFrom(context.Background()); ok || r != nil {
		t.Errorf("RequestFrom(Background) = %v, %v", r, ok)
	}
	if r, ok := admission.RequestFrom(admission.ContextWithRequest(context.Background(), nil)); ok || r != nil {
		t.Errorf("RequestFrom of a nil request = %v, %v", r, ok)
	}
}

func TestResponses(t *testing.T) {
	if r := admission.Allowed(""); !r.Allowed || r.Result != nil {
		t.Errorf(`Allowed("") = %+v, want no result`, r)
	}
	if r := admission.Allowed("ok"); !r.Allowed || r.Result.Code != 200 || r.Result.Message != "ok" {
		t.Errorf(`Allowed("ok") = %+v`, r)
	}
	if r := admission.Denied("no"); r.Allowed || r.Result.Code != 403 || r.Result.Reason != metav1.StatusReasonForbidden ||
		r.Result.Message != "no" || r.Result.Status != metav1.StatusFailure {
		t.Errorf(`Denied("no") = %+v`, r.Result)
	}
	for code, reason := range map[int32]metav1.StatusReason{400: metav1.StatusReasonBadRequest,
		422: metav1.StatusReasonInvalid, 500: metav1.StatusReasonInternalError, 418: metav1.StatusReasonUnknown} {
		r := admission.Errored(code, errors.New("broke"))
		if r.Allowed || r.Result.Code != code || r.Result.Reason != reason || r.Result.Message != "broke" {
			t.Errorf("Errored(%d) = %+v, want reason %s", code, r.Result, reason)
		}
	}
	if r := admission.Errored(503, nil); r.Result.Message != "Service Unavailable" {
		t.Errorf("Errored(503, nil) message %q", r.Result.Message)
	}
}
