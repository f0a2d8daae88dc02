package admission_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var deploymentKind = metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// deployment returns a Deployment named name as a client sends it.
func deployment(name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// raw encodes obj as the request's object; nil for none.
func raw(t testing.TB, obj any) runtime.RawExtension {
	t.Helper()
	if obj == nil {
		return runtime.RawExtension{}
	}
	if b, ok := obj.(string); ok {
		return runtime.RawExtension{Raw: []byte(b)}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: b}
}

// request returns a request for a Deployment, objects to be set.
func request(op admissionv1.Operation) admissionv1.AdmissionRequest {
	return admissionv1.AdmissionRequest{
		UID: "7b2f5c8e-0a1d-4e3b-9c6f-1d2e3f4a5b6c", Kind: deploymentKind, Operation: op,
		Resource:  metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Namespace: "shop", Name: "web", UserInfo: authUser("alice"),
	}
}

func authUser(name string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: name, Groups: []string{"system:authenticated"}}
}

// review encodes req in an admission.k8s.io/v1 AdmissionReview.
func review(t testing.TB, req admissionv1.AdmissionRequest) []byte {
	t.Helper()
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to h as the API server does.
func post(h http.Handler, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// admit sends req to h and returns the response of the review h answers
// with, after checking that it is a well-formed answer to req.
func admit(t testing.TB, h http.Handler, req admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	t.Helper()
	return responseOf(t, post(h, review(t, req)), req.UID)
}

func responseOf(t testing.TB, rec *httptest.ResponseRecorder, uid types.UID) *admissionv1.AdmissionResponse {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200; body %q", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response %q: %v", rec.Body, err)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Errorf("response is %s %s, want admission.k8s.io/v1 AdmissionReview", out.APIVersion, out.Kind)
	}
	if out.Request != nil {
		t.Error("response carries a request")
	}
	if out.Response == nil {
		t.Fatalf("review %q has no response", rec.Body)
	}
	if out.Response.UID != uid {
		t.Errorf("response UID %q, want %q", out.Response.UID, uid)
	}
	return out.Response
}

// wantDenied checks that resp denies with code and message.
func wantDenied(t testing.TB, resp *admissionv1.AdmissionResponse, code int32, reason metav1.StatusReason, message string) {
	t.Helper()
	switch {
	case resp.Allowed:
		t.Fatalf("allowed, want a denial with %d %q", code, message)
	case resp.Result == nil:
		t.Fatal("denied without a result")
	case resp.Result.Code != code || resp.Result.Reason != reason || resp.Result.Message != message:
		t.Errorf("denied with %d %s %q, want %d %s %q", resp.Result.Code, resp.Result.Reason, resp.Result.Message,
			code, reason, message)
	}
	if resp.Result != nil && resp.Result.Status != metav1.StatusFailure {
		t.Errorf("result status %q, want Failure", resp.Result.Status)
	}
	if resp.Patch != nil || resp.PatchType != nil {
		t.Errorf("denial carries patch %s", resp.Patch)
	}
}

// logSink records what is logged through it.
type logSink struct {
	mu      sync.Mutex
	entries []logEntry
}

type logEntry struct {
	level int // -1 for errors
	msg   string
	err   error
	kv    map[string]any
}

func (s *logSink) logger() logr.Logger { return logr.New(s) }

func (s *logSink) Init(logr.RuntimeInfo)                  {}
func (s *logSink) Enabled(int) bool                       { return true }
func (s *logSink) WithValues(...any) logr.LogSink         { return s }
func (s *logSink) WithName(string) logr.LogSink           { return s }
func (s *logSink) Info(level int, msg string, kv ...any)  { s.add(logEntry{level, msg, nil, pairs(kv)}) }
func (s *logSink) Error(err error, msg string, kv ...any) { s.add(logEntry{-1, msg, err, pairs(kv)}) }
func (s *logSink) add(e logEntry)                         { s.mu.Lock(); s.entries = append(s.entries, e); s.mu.Unlock() }
func (s *logSink) all() []logEntry                        { s.mu.Lock(); defer s.mu.Unlock(); return s.entries }

func pairs(kv []any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
