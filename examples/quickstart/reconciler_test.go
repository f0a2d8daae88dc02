package main

import (
	"fmt"
	"io"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/testenv"
)

// withScheme gives the test's manager the scheme run gives the operator's.
var withScheme = operatortest.WithManagerOptions(manager.WithScheme(clientgoscheme.Scheme))

// TestReconcilerRecordsEachGeneration runs the reconciler as the story's
// first controller does, behind GenerationChanged: each spec version is
// recorded in the status, and the reconciler's own status writes do not
// bring it back.
func TestReconcilerRecordsEachGeneration(t *testing.T) {
	r := &reconciler{out: io.Discard}
	env := operatortest.New(t, func(mgr *manager.Manager) error { return wireRecorder(mgr, r) }, withScheme)
	recordsEachGeneration(t, env)
	if n := r.count.Load(); n != 2 {
		t.Errorf("%d reconciles for 2 spec versions, want 2: the status writes are filtered out", n)
	}
}

// wireRecorder wires r into mgr as the story's first controller, behind
// GenerationChanged.
func wireRecorder(mgr *manager.Manager, r *reconciler) (err error) {
	if r.deployments, err = client.For[*appsv1.Deployment](mgr.Factory(), ""); err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		For(builder.Kind(&appsv1.Deployment{}, predicate.GenerationChanged[*appsv1.Deployment]())).Complete(r)
}

// recordsEachGeneration creates a Deployment, scales it, and checks that
// the status records each generation.
func recordsEachGeneration(t testing.TB, env *operatortest.Env) {
	deployments := operatortest.Client[*appsv1.Deployment](env)
	d := newDeployment("web")
	d.Namespace = env.Namespace
	if _, err := deployments.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	observed := func(gen int64) func() error {
		return func() error {
			d, err := deployments.Live().Get(t.Context(), env.Namespace, "web")
			if err == nil && (d.Status.ObservedGeneration != gen || len(d.Status.Conditions) != 1 || d.Status.Conditions[0].Type != "Reconciled") {
				err = fmt.Errorf("generation %d observed, conditions %+v", d.Status.ObservedGeneration, d.Status.Conditions)
			}
			return err
		}
	}
	testenv.Eventually(t, 10*time.Second, "generation 1 to be recorded", observed(1))
	if _, err := deployments.Modify(t.Context(), env.Namespace, "web", func(d *appsv1.Deployment) error {
		d.Spec.Replicas = ptr.To[int32](2)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "generation 2 to be recorded", observed(2))
}
