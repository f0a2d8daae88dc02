package admit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes/scheme"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/bench/internal/admit"
)

// validator is the shared logic as either framework's Validator: both
// take func(ctx, T) (Warnings, error) methods, and Warnings are []string.
type validator struct{}

func (validator) ValidateCreate(_ context.Context, d *appsv1.Deployment) ([]string, error) {
	return admit.Validate(d)
}

func (validator) ValidateUpdate(_ context.Context, old, d *appsv1.Deployment) ([]string, error) {
	return admit.ValidateUpdate(old, d)
}

func (validator) ValidateDelete(context.Context, *appsv1.Deployment) ([]string, error) {
	return nil, nil
}

type steadyValidator struct{ validator }

func (v steadyValidator) ValidateCreate(ctx context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	return v.validator.ValidateCreate(ctx, d)
}

func (v steadyValidator) ValidateUpdate(ctx context.Context, old, d *appsv1.Deployment) (admission.Warnings, error) {
	return v.validator.ValidateUpdate(ctx, old, d)
}

func (v steadyValidator) ValidateDelete(ctx context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	return v.validator.ValidateDelete(ctx, d)
}

type crValidator struct{ validator }

func (v crValidator) ValidateCreate(ctx context.Context, d *appsv1.Deployment) (cradmission.Warnings, error) {
	return v.validator.ValidateCreate(ctx, d)
}

func (v crValidator) ValidateUpdate(ctx context.Context, old, d *appsv1.Deployment) (cradmission.Warnings, error) {
	return v.validator.ValidateUpdate(ctx, old, d)
}

func (v crValidator) ValidateDelete(ctx context.Context, d *appsv1.Deployment) (cradmission.Warnings, error) {
	return v.validator.ValidateDelete(ctx, d)
}

// handlers are both frameworks' admission handlers of the shared logic,
// without their servers (TLS, metrics, body limits).
func handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"steady":             admission.NewValidator[*appsv1.Deployment](steadyValidator{}),
		"controller-runtime": cradmission.WithValidator[*appsv1.Deployment](scheme.Scheme, crValidator{}),
	}
}

// TestFrameworksAnswerAsChecked checks that both frameworks answer every
// case of the benchmark's load as Case.Check expects: the check is what
// the logic says, not one framework's habits.
func TestFrameworksAnswerAsChecked(t *testing.T) {
	cases, err := admit.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for impl, h := range handlers() {
		for i := range cases {
			c := &cases[i]
			uid := admit.UID(1, uint64(i))
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, admit.Path, bytes.NewReader(c.Body(uid)))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Result().Body)
			if err := c.Check(uid, rec.Code, body); err != nil {
				t.Errorf("%s: %v", impl, err)
			}
		}
	}
}

// BenchmarkAdmissionHandler is the CPU of one admission request in each
// framework's handler alone (decoding the review and objects, the
// validator, encoding the answer), over the load's mix of cases: the
// part of bench/cmd/webhook's per-request CPU that is not TLS, HTTP or
// the server around the handler.
func BenchmarkAdmissionHandler(b *testing.B) {
	cases, err := admit.Cases()
	if err != nil {
		b.Fatal(err)
	}
	schedule := admit.Schedule()
	for _, impl := range []string{"steady", "controller-runtime"} {
		h := handlers()[impl]
		b.Run(fmt.Sprintf("impl=%s", impl), func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				c := &cases[schedule[n%len(schedule)]]
				req := httptest.NewRequest(http.MethodPost, admit.Path, bytes.NewReader(c.Body(admit.UID(1, uint64(n)))))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: HTTP %d", c.Name, rec.Code)
				}
				n++
			}
		})
	}
}
