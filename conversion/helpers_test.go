package conversion_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// review is a ConversionReview as the API server writes it.
func review(uid, desired string, objects ...string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",`+
		`"request":{"uid":%q,"desiredAPIVersion":%q,"objects":[%s]}}`, uid, desired, strings.Join(objects, ","))
}

// post sends body to h as the API server does.
func post(h http.Handler, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// answer is a ConversionReview response as the API server reads it.
type answer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   *struct {
		UID              string            `json:"uid"`
		ConvertedObjects []json.RawMessage `json:"convertedObjects"`
		Result           metav1.Status     `json:"result"`
	} `json:"response"`
}

// answered checks that rec holds a well-formed answer to the review with
// uid and returns it.
func answered(t *testing.T, rec *httptest.ResponseRecorder, uid string) *answer {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var a answer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("response is not JSON: %v; body %s", err, rec.Body)
	}
	if a.APIVersion != "apiextensions.k8s.io/v1" || a.Kind != "ConversionReview" || a.Response == nil {
		t.Fatalf("response is not a v1 ConversionReview with a response: %s", rec.Body)
	}
	if a.Response.UID != uid {
		t.Errorf("response uid %q, want %q", a.Response.UID, uid)
	}
	return &a
}

// converted sends the objects to h for conversion to desired and returns
// what came back, failing t unless the conversion succeeded.
func converted(t *testing.T, h http.Handler, desired string, objects ...string) []json.RawMessage {
	t.Helper()
	a := answered(t, post(h, review("uid-1", desired, objects...)), "uid-1")
	if a.Response.Result.Status != metav1.StatusSuccess {
		t.Fatalf("result %+v, want Success", a.Response.Result)
	}
	if len(a.Response.ConvertedObjects) != len(objects) {
		t.Fatalf("%d converted objects, want %d", len(a.Response.ConvertedObjects), len(objects))
	}
	return a.Response.ConvertedObjects
}

// failed sends the objects to h for conversion to desired and returns the
// failure message, failing t unless the conversion failed as a whole.
func failed(t *testing.T, h http.Handler, desired string, objects ...string) string {
	t.Helper()
	a := answered(t, post(h, review("uid-2", desired, objects...)), "uid-2")
	if a.Response.Result.Status != metav1.StatusFailure {
		t.Fatalf("result %+v, want Failure", a.Response.Result)
	}
	if n := len(a.Response.ConvertedObjects); n != 0 {
		t.Errorf("a failed review returned %d objects, want none", n)
	}
	return a.Response.Result.Message
}

// logBuffer is a logr.Logger's output, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.buf.WriteString(args + "\n")
	}, funcr.Options{Verbosity: 1})
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// decode unmarshals raw into a new T.
func decode[T any](t *testing.T, raw []byte) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %T from %s: %v", v, raw, err)
	}
	return v
}
