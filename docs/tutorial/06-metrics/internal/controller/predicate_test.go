package controller

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/steadyctl/steady/docs/tutorial/06-metrics/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestOnlySpecChangesReconcileAgain counts the reconciles that a change
// of the site itself caused (reason primary_updated, which steady counts
// in steady_reconcile_reasons_total): the controller's own writes to the
// site, its finalizer and its status, cause none; a change of its spec
// causes one.
func TestOnlySpecChangesReconcileAgain(t *testing.T) {
	env, _ := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	deployments := operatortest.Client[*appsv1.Deployment](env)
	updates := func() float64 {
		return metric(t, env.Manager, "steady_reconcile_reasons_total",
			map[string]string{"controller": "staticsite", "reason": "primary_updated"})
	}
	// settled waits until the site's Ready condition is status for
	// generation, written by the controller, then checks that no
	// reconcile of reason primary_updated follows beyond want.
	settled := func(what string, generation int64, status string, want float64) {
		t.Helper()
		testenv.Eventually(t, 10*time.Second, what, func() error {
			s, err := sites.Live().Get(ctx, ns, "news")
			if err != nil {
				return err
			}
			if c := meta.FindStatusCondition(s.Status.Conditions, v1alpha1.ConditionReady); c == nil ||
				string(c.Status) != status || c.ObservedGeneration != generation {
				return fmt.Errorf("Ready is %+v", c)
			}
			return nil
		})
		testenv.Consistently(t, 500*time.Millisecond, fmt.Sprintf("%v reconciles for updates of the site", want), func() error {
			if got := updates(); got != want {
				return fmt.Errorf("%v reconciles for updates of the site, want %v", got, want)
			}
			return nil
		})
	}

	if _, err := sites.Create(ctx, newSite(ns, "news")); err != nil {
		t.Fatal(err)
	}
	// Writes of the finalizer and of the conditions: no reconcile.
	settled("the site rolling out", 1, "False", 0)
	rollOut(t, deployments, ns, "news", 1)
	settled("the site ready", 1, "True", 0)

	// A new page is a new spec: one reconcile, and its status write none.
	if _, err := sites.Modify(ctx, ns, "news", func(s *v1alpha1.StaticSite) error {
		s.Spec.Pages["archive.html"] = "<p>Older news</p>"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	settled("the new pages rolling out", 2, "False", 1)
}
