package conversion_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

func TestMethodNotAllowed(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		req := httptest.NewRequest(method, "/convert", nil)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", method, rec.Code)
		}
		if allow := rec.Header().Get("Allow"); allow != http.MethodPost {
			t.Errorf("%s: Allow %q, want POST", method, allow)
		}
	}
}

func TestUnsupportedMediaType(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	body := review("u", "convert.steady.test/v1")
	for _, ct := range []string{"", "text/plain", "application/yaml", "application/json-patch+json", "application/vnd.kubernetes.protobuf", ";;"} {
		req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: status %d, want 415", ct, rec.Code)
		}
	}
	// Parameters do not matter.
	req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("application/json; charset=utf-8: status %d, want 200; body %s", rec.Code, rec.Body)
	}
}

func TestBadRequest(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	tests := []struct {
		name, body, want string
	}{
		{"empty body", ``, "malformed ConversionReview"},
		{"not JSON", `{"apiVersion":`, "malformed ConversionReview"},
		{"trailing data", string(review("u", "convert.steady.test/v1")) + `{}`, "malformed ConversionReview"},
		{"objects not a list", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/v1","objects":{}}}`,
			"malformed ConversionReview"},
		{"v1beta1 review", `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/v1"}}`,
			`apiVersion "apiextensions.k8s.io/v1beta1" not supported`},
		{"no apiVersion", `{"kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/v1"}}`, `apiVersion "" not supported`},
		{"admission review", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","desiredAPIVersion":"a/v1"}}`,
			`kind "AdmissionReview" is not ConversionReview`},
		{"no request", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, "no request"},
		{"null request", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":null}`, "no request"},
		{"no uid", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"desiredAPIVersion":"a/v1"}}`, "no request.uid"},
		{"no desired version", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u"}}`,
			"no request.desiredAPIVersion"},
		{"bad desired version", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/b/c"}}`,
			"request.desiredAPIVersion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(h, []byte(tt.body))
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q, want text/plain", ct)
			}
			if !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("body %q, want it to name %q", rec.Body, tt.want)
			}
		})
	}
}

// The webhook server bounds bodies with http.MaxBytesReader; the handler
// answers a body over the bound 413.
func TestRequestEntityTooLarge(t *testing.T) {
	h := http.MaxBytesHandler(conversion.NewHandler(widget.Scheme()), 64)
	rec := post(h, review("u", "convert.steady.test/v1", v1beta1Widget("big", strings.Repeat("x", 100))))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413; body %s", rec.Code, rec.Body)
	}
	if !strings.Contains(rec.Body.String(), "larger than 64 bytes") {
		t.Errorf("body %q, want it to name the bound", rec.Body)
	}
}

// A body that breaks off is a bad request, not a server error.
func TestBodyReadError(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	req := httptest.NewRequest(http.MethodPost, "/convert", io.MultiReader(strings.NewReader(`{"apiVersion"`), failingReader{}))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "reading the request body") {
		t.Fatalf("status %d body %q, want 400 naming the body", rec.Code, rec.Body)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// Over a real connection, as the webhook server mounts it.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.MaxBytesHandler(conversion.NewHandler(widget.Scheme()), 1<<20))
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL+"/convert", "application/json",
		bytes.NewReader(review("uid-http", "convert.steady.test/v1", v1beta1Widget("w", "red"))))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || a.Response == nil || a.Response.UID != "uid-http" ||
		a.Response.Result.Status != "Success" || len(a.Response.ConvertedObjects) != 1 {
		t.Fatalf("status %d, answer %+v", resp.StatusCode, a.Response)
	}
	if got := decode[widget.V1](t, a.Response.ConvertedObjects[0]); got.Spec.Colour != "red" || got.APIVersion != "convert.steady.test/v1" {
		t.Errorf("converted %+v, want colour red in v1", got)
	}
}
