package conversion_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

// Whatever the body, the handler answers 400 with a reason, or 200 with a
// well-formed review for the request's uid: every object converted on
// Success, none and a message on Failure.
func FuzzServeHTTP(f *testing.F) {
	s := widget.Scheme()
	addBroken(s)
	addGizmo(s)
	h := conversion.NewHandler(s)

	f.Add(review("u", "convert.steady.test/v1", v1beta1Widget("w", "red"), v1beta1Widget("x", "blue")))
	f.Add(review("u", "convert.steady.test/v2alpha1", v1beta1Widget("w", widget.ColorExplode)))
	f.Add(review("u", "convert.steady.test/v1beta1",
		`{"apiVersion":"convert.steady.test/v2alpha1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"replicas":2,"ports":{"http":80}}}`))
	f.Add(review("u", "convert.steady.test/v1", `{"apiVersion":"convert.steady.test/v1","kind":"Widget"}`, `null`, `7`))
	f.Add(review("u", "broken.steady.test/v2", `{"apiVersion":"broken.steady.test/v1","kind":"Orphan"}`))
	f.Add(review("u", "gizmo.steady.test/v1beta1", `{"apiVersion":"gizmo.steady.test/v1","kind":"Gizmo","metadata":{"name":"g"}}`))
	f.Add(review("", "convert.steady.test/v1"))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"/"}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"v1","objects":[{"apiVersion":"v1","kind":"Pod"}]}}`))
	f.Add([]byte(``))
	f.Add([]byte(`[]`))

	f.Fuzz(func(t *testing.T, body []byte) {
		rec := post(h, body)
		switch rec.Code {
		case http.StatusBadRequest:
			if !strings.HasPrefix(rec.Body.String(), "conversion: ") {
				t.Fatalf("400 without a reason: %q", rec.Body)
			}
			return
		case http.StatusOK:
		default:
			t.Fatalf("status %d for body %q", rec.Code, body)
		}
		// Accepted, so it parses.
		var sent struct {
			Request struct {
				UID     string            `json:"uid"`
				Objects []json.RawMessage `json:"objects"`
			} `json:"request"`
		}
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatalf("accepted a body that does not parse: %v", err)
		}
		a := answered(t, rec, sent.Request.UID)
		switch r := a.Response; r.Result.Status {
		case metav1.StatusSuccess:
			if len(r.ConvertedObjects) != len(sent.Request.Objects) {
				t.Fatalf("Success with %d objects for %d", len(r.ConvertedObjects), len(sent.Request.Objects))
			}
			for i, obj := range r.ConvertedObjects {
				var tm metav1.TypeMeta
				if err := json.Unmarshal(obj, &tm); err != nil {
					t.Fatalf("converted object %d %s: %v", i, obj, err)
				}
			}
		case metav1.StatusFailure:
			if len(r.ConvertedObjects) != 0 || r.Result.Message == "" {
				t.Fatalf("Failure with %d objects and message %q", len(r.ConvertedObjects), r.Result.Message)
			}
		default:
			t.Fatalf("result status %q", r.Result.Status)
		}
	})
}

// BenchmarkConvert converts a list of 100 Widgets between two spokes,
// through the hub, as the API server asks when a client lists them.
func BenchmarkConvert(b *testing.B) {
	h := conversion.NewHandler(widget.Scheme())
	objects := make([]string, 100)
	for i := range objects {
		objects[i] = `{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
			`"uid":"0e5cbb5c-4ac6-4d1f-9d4b-2a0a1b7c6f10","resourceVersion":"12345","generation":4,"creationTimestamp":"2026-01-02T03:04:05Z",` +
			`"labels":{"app":"demo","tier":"backend"},"annotations":{"note":"a note of some length to make the object realistic"}},` +
			`"spec":{"replicas":3,"color":"red","ports":[{"name":"http","number":80},{"name":"admin","number":9000}],"size":"10Gi"},` +
			`"status":{"ready":true}}`
	}
	body := review("uid-bench", "convert.steady.test/v2alpha1", objects...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if rec := post(h, body); rec.Code != http.StatusOK {
			b.Fatal(rec.Body)
		}
	}
}
