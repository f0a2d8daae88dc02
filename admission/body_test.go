package admission_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/steadyctl/steady/admission"
)

// TestBodyTooLarge checks that a body cut off by the server's
// http.MaxBytesReader is answered 413.
func TestBodyTooLarge(t *testing.T) {
	body := review(t, request(admissionv1.Create))
	h := admission.NewHandler(allow)
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, int64(len(body)-1))
		h.ServeHTTP(w, r)
	})
	rec := post(limited, body)
	want := "admission: request body: larger than " + strconv.Itoa(len(body)-1) + " bytes\n"
	if rec.Code != http.StatusRequestEntityTooLarge || rec.Body.String() != want {
		t.Errorf("answered %d %q, want 413 %q", rec.Code, rec.Body, want)
	}

	// At the limit exactly, the review is served.
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, int64(len(body)))
		h.ServeHTTP(w, r)
	})
	if resp := responseOf(t, post(ok, body), request("").UID); !resp.Allowed {
		t.Errorf("denied: %+v", resp.Result)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestBodyReadError(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/validate", failingReader{})
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	admission.NewHandler(allow).ServeHTTP(rec, r)
	if want := "admission: reading request body: connection reset\n"; rec.Code != http.StatusBadRequest || rec.Body.String() != want {
		t.Errorf("answered %d %q, want 400 %q", rec.Code, rec.Body, want)
	}
}

// brokenWriter fails every write, as a connection the API server closed.
type brokenWriter struct{ httptest.ResponseRecorder }

func (*brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriteError(t *testing.T) {
	logs := &logSink{}
	h := admission.NewHandler(allow, admission.WithLogger(logs.logger()))
	r := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(review(t, request(admissionv1.Create))))
	r.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(&brokenWriter{*httptest.NewRecorder()}, r)
	if e := logs.all(); len(e) != 1 || e[0].level != 1 || e[0].kv["error"] != "broken pipe" {
		t.Errorf("logged %+v, want the write error at V(1)", e)
	}
}
