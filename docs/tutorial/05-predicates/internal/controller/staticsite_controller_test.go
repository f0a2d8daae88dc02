package controller

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/docs/tutorial/05-predicates/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestReconcilesAStaticSite checks the wiring: the CRD is installed, the
// manager runs the controller, and a StaticSite created reaches Reconcile,
// which succeeds. The reconciler does nothing else yet, so the proof is
// the manager's count of successful reconciles.
func TestReconcilesAStaticSite(t *testing.T) {
	env, _ := start(t)
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	if _, err := sites.Create(t.Context(), newSite(env.Namespace, "hello")); err != nil {
		t.Fatal(err)
	}
	success := map[string]string{"controller": "staticsite", "result": "success"}
	testenv.Eventually(t, 10*time.Second, "a successful reconcile", func() bool {
		return metric(t, env.Manager, "controller_runtime_reconcile_total", success) >= 1
	})
}

// TestTheAPIServerEnforcesTheSchema shows what the CRD's schema does,
// which a fake client would not: defaults, validation and the CEL rule
// that keeps the domain from changing.
func TestTheAPIServerEnforcesTheSchema(t *testing.T) {
	env, _ := start(t)
	sites := operatortest.Client[*v1alpha1.StaticSite](env)

	created, err := sites.Create(t.Context(), newSite(env.Namespace, "defaults"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(created.Spec.Replicas, -1); got != 1 {
		t.Errorf("spec.replicas stored as %d, want the schema's default 1", got)
	}

	negative := newSite(env.Namespace, "negative")
	negative.Spec.Replicas = ptr.To[int32](-1)
	_, err = sites.Create(t.Context(), negative)
	wantInvalid(t, "replicas -1", err, "spec.replicas")

	noDomain := newSite(env.Namespace, "nodomain")
	noDomain.Spec.Domain = ""
	_, err = sites.Create(t.Context(), noDomain)
	wantInvalid(t, "an empty domain", err, "spec.domain")

	_, err = sites.Modify(t.Context(), env.Namespace, "defaults", func(s *v1alpha1.StaticSite) error {
		s.Spec.Domain = "elsewhere.example.com"
		return nil
	})
	wantInvalid(t, "a new domain", err, "domain is immutable")
}

// wantInvalid fails t unless err is the API server's 422 Invalid naming
// want.
func wantInvalid(t *testing.T, what string, err error, want string) {
	t.Helper()
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %v, want 422 Invalid naming %q", what, err, want)
	}
}
