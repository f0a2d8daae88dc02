package admission_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/steadyctl/steady/admission"
)

// replicasPolicy is the benchmark's validator: a typical check of a few
// fields.
type replicasPolicy struct{}

func (replicasPolicy) ValidateCreate(_ context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	if d.Spec.Replicas != nil && *d.Spec.Replicas > 10 {
		return nil, errors.New("spec.replicas: at most 10")
	}
	return nil, nil
}

func (p replicasPolicy) ValidateUpdate(ctx context.Context, _, d *appsv1.Deployment) (admission.Warnings, error) {
	return p.ValidateCreate(ctx, d)
}

func (replicasPolicy) ValidateDelete(context.Context, *appsv1.Deployment) (admission.Warnings, error) {
	return nil, nil
}

// BenchmarkValidator measures a validating webhook's cost per request,
// HTTP transport aside: reading a Deployment's review, decoding it,
// validating, and writing the answer.
func BenchmarkValidator(b *testing.B) {
	h := admission.NewValidator[*appsv1.Deployment](replicasPolicy{})
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		req := request(op)
		req.Object = raw(b, seedAPIServerDeployment)
		if op == admissionv1.Update {
			req.OldObject = req.Object
		}
		body := review(b, req)
		b.Run(string(op), func(b *testing.B) {
			benchmarkHandler(b, h, body)
		})
	}
}

func benchmarkHandler(b *testing.B, h http.Handler, body []byte) {
	r, err := http.NewRequest(http.MethodPost, "/validate", nil)
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	in := &resettableBody{}
	r.Body = in
	w := &discardWriter{header: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		in.Reset(body)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK && w.code != 0 {
			b.Fatalf("status %d", w.code)
		}
	}
	if w.n == 0 {
		b.Fatal("nothing written")
	}
}

// resettableBody is a request body to read again without allocating.
type resettableBody struct{ bytes.Reader }

func (*resettableBody) Close() error { return nil }

// discardWriter is a ResponseWriter that keeps only the status and size.
type discardWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
