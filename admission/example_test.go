package admission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/steadyctl/steady/admission"
)

// replicaLimit caps the replicas of Deployments.
type replicaLimit struct{ max int32 }

func (l replicaLimit) ValidateCreate(_ context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	if d.Spec.Replicas == nil || *d.Spec.Replicas <= l.max {
		return nil, nil
	}
	// NewInvalid tells the client which field is wrong, with code 422.
	return nil, apierrors.NewInvalid(appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind(), d.Name, field.ErrorList{
		field.Invalid(field.NewPath("spec", "replicas"), *d.Spec.Replicas, fmt.Sprintf("must be at most %d", l.max)),
	})
}

func (l replicaLimit) ValidateUpdate(ctx context.Context, _, d *appsv1.Deployment) (admission.Warnings, error) {
	return l.ValidateCreate(ctx, d)
}

func (replicaLimit) ValidateDelete(context.Context, *appsv1.Deployment) (admission.Warnings, error) {
	return nil, nil
}

// deploymentReview is a review as the API server sends it for the
// creation of a Deployment with 30 replicas.
const deploymentReview = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
	"uid":"0d9e2a4c","kind":{"group":"apps","version":"v1","kind":"Deployment"},
	"resource":{"group":"apps","version":"v1","resource":"deployments"},
	"namespace":"shop","name":"web","operation":"CREATE","userInfo":{"username":"alice"},
	"object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
		"spec":{"replicas":30,"template":{"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}}}`

// serveReview posts body to h as the API server does and returns the
// response of the review h answers with.
func serveReview(h http.Handler, body string) *admissionv1.AdmissionResponse {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		fmt.Println(rec.Code, rec.Body)
		return &admissionv1.AdmissionResponse{}
	}
	return out.Response
}

// A validating webhook that caps a Deployment's replicas. Mounted on a
// webhook.Server at a path a ValidatingWebhookConfiguration names, it
// gets the API server's reviews; here one is served directly.
func ExampleNewValidator() {
	h := admission.NewValidator[*appsv1.Deployment](replicaLimit{max: 10})

	resp := serveReview(h, deploymentReview)
	fmt.Println(resp.UID, resp.Allowed, resp.Result.Code, resp.Result.Reason)
	fmt.Println(resp.Result.Message)
	// Output:
	// 0d9e2a4c false 422 Invalid
	// Deployment.apps "web" is invalid: spec.replicas: Invalid value: 30: must be at most 10
}

// revisionLimit defaults a Deployment's revisionHistoryLimit to 3.
type revisionLimit struct{}

func (revisionLimit) Default(_ context.Context, d *appsv1.Deployment) error {
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = new(int32(3))
	}
	return nil
}

// A mutating webhook that sets a default. The patch carries the default
// alone, not what decoding into appsv1.Deployment and encoding again
// would change.
func ExampleNewDefaulter() {
	h := admission.NewDefaulter[*appsv1.Deployment](revisionLimit{})

	resp := serveReview(h, deploymentReview)
	fmt.Println(resp.Allowed, *resp.PatchType)
	fmt.Println(string(resp.Patch))
	// Output:
	// true JSONPatch
	// [{"op":"add","path":"/spec/revisionHistoryLimit","value":3}]
}

// A raw Handler, for what Validator and Defaulter do not cover: here one
// that admits nothing a dry run would not make real, and tells why.
func ExampleNewHandler() {
	h := admission.NewHandler(admission.HandlerFunc(func(ctx context.Context, req *admission.Request) admission.Response {
		if req.IsDryRun() {
			return admission.Allowed("dry run: nothing to check")
		}
		return admission.Denied(fmt.Sprintf("%s may not %s %s %s/%s",
			req.UserInfo.Username, strings.ToLower(string(req.Operation)), req.Kind.Kind, req.Namespace, req.Name))
	}))

	resp := serveReview(h, deploymentReview)
	fmt.Println(resp.Allowed, resp.Result.Code, resp.Result.Message)
	resp = serveReview(h, strings.Replace(deploymentReview, `"operation":"CREATE"`, `"operation":"CREATE","dryRun":true`, 1))
	fmt.Println(resp.Allowed, resp.Result.Message)
	// Output:
	// false 403 alice may not create Deployment shop/web
	// true dry run: nothing to check
}
