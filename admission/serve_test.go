package admission_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/admission"
)

var allow = admission.HandlerFunc(func(context.Context, *admission.Request) admission.Response {
	return admission.Allowed("")
})

// TestHTTPErrors checks what is answered to requests that are not
// admission.k8s.io/v1 reviews: an HTTP error with a plain-text message.
func TestHTTPErrors(t *testing.T) {
	valid := review(t, request(admissionv1.Create))
	for _, tc := range []struct {
		name        string
		method      string
		contentType string
		body        string
		code        int
		message     string
	}{
		{"get", http.MethodGet, "application/json", string(valid), http.StatusMethodNotAllowed,
			"admission: method GET is not allowed (POST only)"},
		{"put", http.MethodPut, "application/json", string(valid), http.StatusMethodNotAllowed,
			"admission: method PUT is not allowed (POST only)"},
		{"yaml", http.MethodPost, "application/yaml", string(valid), http.StatusUnsupportedMediaType,
			`admission: Content-Type "application/yaml" is not application/json`},
		{"no content type", http.MethodPost, "", string(valid), http.StatusUnsupportedMediaType,
			`admission: Content-Type "" is not application/json`},
		{"empty", http.MethodPost, "application/json", "", http.StatusBadRequest, "admission: request body: empty"},
		{"malformed", http.MethodPost, "application/json", `{"apiVersion":`, http.StatusBadRequest,
			"admission: request body: unexpected end of JSON input"},
		{"not an object", http.MethodPost, "application/json", `[1]`, http.StatusBadRequest,
			"admission: request body: json: cannot unmarshal array into Go value of type admission.admissionReview"},
		{"v1beta1", http.MethodPost, "application/json",
			strings.Replace(string(valid), `"admission.k8s.io/v1"`, `"admission.k8s.io/v1beta1"`, 1), http.StatusBadRequest,
			`admission: request body: AdmissionReview apiVersion "admission.k8s.io/v1beta1" is not served (admission.k8s.io/v1 only)`},
		{"no apiVersion", http.MethodPost, "application/json", `{"kind":"AdmissionReview","request":{"uid":"1"}}`,
			http.StatusBadRequest, `admission: request body: AdmissionReview apiVersion "" is not served (admission.k8s.io/v1 only)`},
		{"other kind", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"ConversionReview"}`,
			http.StatusBadRequest, `admission: request body: kind "ConversionReview" is not AdmissionReview`},
		{"kind in other case", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","Kind":"AdmissionReview"}`,
			http.StatusBadRequest, `admission: request body: kind "" is not AdmissionReview`},
		{"no request", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
			http.StatusBadRequest, "admission: request body: AdmissionReview has no request"},
		{"null request", http.MethodPost, "application/json",
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`,
			http.StatusBadRequest, "admission: request body: AdmissionReview has no request"},
		{"no uid", http.MethodPost, "application/json",
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}`,
			http.StatusBadRequest, "admission: request body: AdmissionReview request has no uid"},
		{"wrong type", http.MethodPost, "application/json",
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","dryRun":"yes"}}`,
			http.StatusBadRequest, "admission: request body: json: cannot unmarshal string into Go struct field Request.request.AdmissionRequest.dryRun of type bool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logSink{}
			called := false
			h := admission.NewHandler(admission.HandlerFunc(func(context.Context, *admission.Request) admission.Response {
				called = true
				return admission.Allowed("")
			}), admission.WithLogger(logs.logger()))
			r := httptest.NewRequest(tc.method, "/validate", strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tc.code || rec.Body.String() != tc.message+"\n" {
				t.Errorf("answered %d %q, want %d %q", rec.Code, rec.Body, tc.code, tc.message)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q, want text/plain", ct)
			}
			if tc.code == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q, want POST", rec.Header().Get("Allow"))
			}
			if called {
				t.Error("the handler was called")
			}
			if e := logs.all(); len(e) != 1 || e[0].level != 1 || e[0].kv["error"] != tc.message {
				t.Errorf("logged %+v, want the message at V(1)", e)
			}
		})
	}
}

// TestHandlerResponse checks that a handler's Response reaches the API
// server whole, under the request's UID, with the request in the
// handler's context.
func TestHandlerResponse(t *testing.T) {
	req := request(admissionv1.Create)
	req.Object = raw(t, deployment("web", 1))
	var seen *admission.Request
	h := admission.NewHandler(admission.HandlerFunc(func(ctx context.Context, r *admission.Request) admission.Response {
		seen, _ = admission.RequestFrom(ctx)
		if seen != r {
			t.Error("the context carries another request than the one handled")
		}
		return admission.Response{Allowed: true, Result: &metav1.Status{Code: 200, Message: "fine"},
			Patch: []byte(`[{"op":"add","path":"/metadata/labels/seen","value":"yes"}]`), Warnings: []string{"w1", "w2"}}
	}))
	resp := admit(t, h, req)
	if !resp.Allowed || resp.Result == nil || resp.Result.Message != "fine" {
		t.Errorf("response %+v, want allowed with message fine", resp)
	}
	if string(resp.Patch) != `[{"op":"add","path":"/metadata/labels/seen","value":"yes"}]` ||
		resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Errorf("patch %s type %v, want the handler's JSONPatch", resp.Patch, resp.PatchType)
	}
	if strings.Join(resp.Warnings, ",") != "w1,w2" {
		t.Errorf("warnings %q", resp.Warnings)
	}
	switch {
	case seen == nil:
		t.Fatal("no request in the context")
	case seen.UID != req.UID || seen.Operation != admissionv1.Create || seen.Name != "web" || seen.Namespace != "shop" ||
		seen.UserInfo.Username != "alice" || seen.Kind != deploymentKind || !bytes.Equal(seen.Object.Raw, req.Object.Raw):
		t.Errorf("request %+v, want %+v", seen.AdmissionRequest, req)
	case seen.IsDryRun():
		t.Error("IsDryRun for a request without dryRun")
	}
}

// TestDeniedPatch checks that a denial's patch is not sent: the API
// server would not apply it.
func TestDeniedPatch(t *testing.T) {
	h := admission.NewHandler(admission.HandlerFunc(func(context.Context, *admission.Request) admission.Response {
		r := admission.Denied("no")
		r.Patch = []byte(`[]`)
		return r
	}))
	wantDenied(t, admit(t, h, request(admissionv1.Create)), 403, metav1.StatusReasonForbidden, "no")
}

func TestContentTypeParameters(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(review(t, request(admissionv1.Create))))
	r.Header.Set("Content-Type", "application/json; charset=utf-8")
	rec := httptest.NewRecorder()
	admission.NewHandler(allow).ServeHTTP(rec, r)
	if resp := responseOf(t, rec, request("").UID); !resp.Allowed {
		t.Error("denied")
	}
}

// TestLoggerInContext checks that WithLogger's logger reaches the handler.
func TestLoggerInContext(t *testing.T) {
	logs := &logSink{}
	h := admission.NewHandler(admission.HandlerFunc(func(ctx context.Context, _ *admission.Request) admission.Response {
		logr.FromContextOrDiscard(ctx).Info("judging")
		return admission.Allowed("")
	}), admission.WithLogger(logs.logger()))
	admit(t, h, request(admissionv1.Create))
	if e := logs.all(); len(e) != 1 || e[0].msg != "judging" {
		t.Errorf("logged %+v, want the handler's message", e)
	}
}

// TestPanic checks that a panicking handler denies its request with 500,
// logs the panic with its stack, and leaves the server serving.
func TestPanic(t *testing.T) {
	logs := &logSink{}
	h := admission.NewHandler(admission.HandlerFunc(func(_ context.Context, r *admission.Request) admission.Response {
		if r.Name == "boom" {
			panic("out of cheese")
		}
		return admission.Allowed("")
	}), admission.WithLogger(logs.logger()))
	req := request(admissionv1.Create)
	req.Name = "boom"
	wantDenied(t, admit(t, h, req), 500, metav1.StatusReasonInternalError, "admission: handler panicked: out of cheese")
	e := logs.all()
	if len(e) != 1 || e[0].level != -1 || e[0].err == nil || e[0].err.Error() != "admission: handler panicked: out of cheese" {
		t.Fatalf("logged %+v, want one error", e)
	}
	if stack, _ := e[0].kv["stack"].(string); !strings.Contains(stack, "TestPanic") {
		t.Errorf("stack %q does not show the handler", stack)
	}
	if e[0].kv["name"] != "boom" || e[0].kv["uid"] != req.UID {
		t.Errorf("log values %v do not name the request", e[0].kv)
	}
	if resp := admit(t, h, request(admissionv1.Create)); !resp.Allowed {
		t.Error("the next request was denied")
	}
}

// TestAbortHandler checks that http.ErrAbortHandler still aborts.
func TestAbortHandler(t *testing.T) {
	h := admission.NewHandler(admission.HandlerFunc(func(context.Context, *admission.Request) admission.Response {
		panic(http.ErrAbortHandler)
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	post(h, review(t, request(admissionv1.Create)))
	t.Error("ServeHTTP returned")
}

func TestNilHandler(t *testing.T) {
	wantDenied(t, admit(t, admission.NewHandler(nil), request(admissionv1.Create)),
		500, metav1.StatusReasonInternalError, "admission: NewHandler: nil Handler")
}
