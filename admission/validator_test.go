package admission_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
)

// call is what a recordingValidator was called with.
type call struct {
	method   string
	old, obj *appsv1.Deployment
	req      *admission.Request
}

// recordingValidator records its calls and answers with warnings and err.
type recordingValidator struct {
	calls    []call
	warnings admission.Warnings
	err      error
}

func (v *recordingValidator) record(ctx context.Context, method string, old, obj *appsv1.Deployment) (admission.Warnings, error) {
	req, _ := admission.RequestFrom(ctx)
	v.calls = append(v.calls, call{method, old, obj, req})
	return v.warnings, v.err
}

func (v *recordingValidator) ValidateCreate(ctx context.Context, obj *appsv1.Deployment) (admission.Warnings, error) {
	return v.record(ctx, "create", nil, obj)
}

func (v *recordingValidator) ValidateUpdate(ctx context.Context, old, obj *appsv1.Deployment) (admission.Warnings, error) {
	return v.record(ctx, "update", old, obj)
}

func (v *recordingValidator) ValidateDelete(ctx context.Context, obj *appsv1.Deployment) (admission.Warnings, error) {
	return v.record(ctx, "delete", nil, obj)
}

func replicas(d *appsv1.Deployment) int32 {
	if d == nil {
		return -1
	}
	return ptr.Deref(d.Spec.Replicas, 0)
}

// TestValidatorOperations checks which method each operation calls, with
// which objects.
func TestValidatorOperations(t *testing.T) {
	for _, tc := range []struct {
		op                  admissionv1.Operation
		object, oldObject   any
		method              string
		oldReplicas, objRep int32
	}{
		{admissionv1.Create, deployment("web", 3), nil, "create", -1, 3},
		{admissionv1.Update, deployment("web", 5), deployment("web", 3), "update", 3, 5},
		{admissionv1.Delete, nil, deployment("web", 3), "delete", -1, 3},
		{admissionv1.Connect, `{"kind":"PodExecOptions"}`, nil, "", 0, 0},
	} {
		t.Run(string(tc.op), func(t *testing.T) {
			v := &recordingValidator{warnings: admission.Warnings{"replicas is deprecated"}}
			req := request(tc.op)
			req.Object, req.OldObject = raw(t, tc.object), raw(t, tc.oldObject)
			resp := admit(t, admission.NewValidator[*appsv1.Deployment](v), req)
			if !resp.Allowed || resp.Result != nil || resp.Patch != nil {
				t.Errorf("response %+v, want allowed with nothing else", resp)
			}
			if tc.method == "" {
				if len(v.calls) != 0 {
					t.Errorf("called %+v, want nothing", v.calls)
				}
				return
			}
			if len(v.calls) != 1 {
				t.Fatalf("called %d times, want once", len(v.calls))
			}
			c := v.calls[0]
			if c.method != tc.method || replicas(c.old) != tc.oldReplicas || replicas(c.obj) != tc.objRep {
				t.Errorf("called %s(old %d, obj %d), want %s(%d, %d)", c.method, replicas(c.old), replicas(c.obj),
					tc.method, tc.oldReplicas, tc.objRep)
			}
			if c.obj.Name != "web" || c.obj.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
				t.Errorf("object decoded as %+v", c.obj)
			}
			if c.req == nil || c.req.UID != req.UID || c.req.Operation != tc.op || c.req.UserInfo.Username != "alice" {
				t.Errorf("request in context %+v", c.req)
			}
			if strings.Join(resp.Warnings, "|") != "replicas is deprecated" {
				t.Errorf("warnings %q", resp.Warnings)
			}
		})
	}
}

// TestValidatorDenies checks how errors become denials.
func TestValidatorDenies(t *testing.T) {
	gk := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	invalid := apierrors.NewInvalid(gk, "web", field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), 30, "at most 10")})
	for _, tc := range []struct {
		name    string
		err     error
		code    int32
		reason  metav1.StatusReason
		message string
		causes  int
	}{
		{"plain", errors.New("replicas must be at most 10"), 403, metav1.StatusReasonForbidden, "replicas must be at most 10", 0},
		{"wrapped plain", fmt.Errorf("policy: %w", errors.New("no")), 403, metav1.StatusReasonForbidden, "policy: no", 0},
		{"invalid", invalid, 422, metav1.StatusReasonInvalid, invalid.Error(), 1},
		{"wrapped invalid", fmt.Errorf("checking replicas: %w", invalid), 422, metav1.StatusReasonInvalid, invalid.Error(), 1},
		{"conflict", apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("busy")),
			409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on deployments.apps "web": busy`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &recordingValidator{warnings: admission.Warnings{"look again"}, err: tc.err}
			req := request(admissionv1.Create)
			req.Object = raw(t, deployment("web", 30))
			resp := admit(t, admission.NewValidator[*appsv1.Deployment](v), req)
			wantDenied(t, resp, tc.code, tc.reason, tc.message)
			if got := resp.Result.Details; tc.causes > 0 && (got == nil || len(got.Causes) != tc.causes || got.Name != "web") {
				t.Errorf("details %+v, want %d causes", got, tc.causes)
			}
			if strings.Join(resp.Warnings, "|") != "look again" {
				t.Errorf("warnings %q, want them on a denial too", resp.Warnings)
			}
		})
	}
}

// TestValidatorDecodeErrors checks requests whose objects are not Ts.
func TestValidatorDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		op          admissionv1.Operation
		object, old any
		message     string
	}{
		{"wrong type", admissionv1.Create, `{"spec":{"replicas":"three"}}`, nil,
			"admission: object: cannot decode apps/v1 Deployment into *v1.Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"no object", admissionv1.Create, nil, nil,
			"admission: object: cannot decode apps/v1 Deployment into *v1.Deployment: the request has none"},
		{"no old object", admissionv1.Update, deployment("web", 1), nil,
			"admission: oldObject: cannot decode apps/v1 Deployment into *v1.Deployment: the request has none"},
		{"bad object in update", admissionv1.Update, `[]`, deployment("web", 1),
			"admission: object: cannot decode apps/v1 Deployment into *v1.Deployment: json: cannot unmarshal array into Go value of type v1.Deployment"},
		{"delete without old object", admissionv1.Delete, nil, nil,
			"admission: oldObject: cannot decode apps/v1 Deployment into *v1.Deployment: the request has none"},
		{"unknown operation", "TRUNCATE", deployment("web", 1), nil, `admission: unknown operation "TRUNCATE"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &recordingValidator{}
			req := request(tc.op)
			req.Object, req.OldObject = raw(t, tc.object), raw(t, tc.old)
			wantDenied(t, admit(t, admission.NewValidator[*appsv1.Deployment](v), req), 400, metav1.StatusReasonBadRequest, tc.message)
			if len(v.calls) != 0 {
				t.Errorf("validator called with %+v", v.calls)
			}
		})
	}
}

// TestValidatorDryRun checks that a validator tells a dry run apart.
func TestValidatorDryRun(t *testing.T) {
	v := &recordingValidator{}
	h := admission.NewValidator[*appsv1.Deployment](v)
	for _, dry := range []bool{true, false} {
		req := request(admissionv1.Create)
		req.Object, req.DryRun = raw(t, deployment("web", 1)), ptr.To(dry)
		admit(t, h, req)
	}
	if len(v.calls) != 2 || !v.calls[0].req.IsDryRun() || v.calls[1].req.IsDryRun() {
		t.Errorf("IsDryRun not as sent: %+v", v.calls)
	}
}

type panickingValidator struct{ recordingValidator }

func (panickingValidator) ValidateUpdate(_ context.Context, _, d *appsv1.Deployment) (admission.Warnings, error) {
	if *d.Spec.ProgressDeadlineSeconds > 600 { // a bug: it may be nil
		return admission.Warnings{"slow"}, nil
	}
	return nil, nil
}

func TestValidatorPanic(t *testing.T) {
	logs := &logSink{}
	h := admission.NewValidator[*appsv1.Deployment](&panickingValidator{}, admission.WithLogger(logs.logger()))
	req := request(admissionv1.Update)
	req.Object, req.OldObject = raw(t, deployment("web", 2)), raw(t, deployment("web", 1))
	wantDenied(t, admit(t, h, req), 500, metav1.StatusReasonInternalError,
		"admission: handler panicked: runtime error: invalid memory address or nil pointer dereference")
	if e := logs.all(); len(e) != 1 || e[0].level != -1 || !strings.Contains(e[0].kv["stack"].(string), "ValidateUpdate") {
		t.Errorf("logged %+v, want the panic with its stack", e)
	}
}
