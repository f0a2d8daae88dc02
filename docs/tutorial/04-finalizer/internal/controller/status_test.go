package controller

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/docs/tutorial/04-finalizer/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestConditionsFollowTheRollout walks a site through a rollout, playing
// the Deployment controller (testenv runs no kube-controller-manager),
// and checks the site's conditions and their observedGeneration at each
// stage.
func TestConditionsFollowTheRollout(t *testing.T) {
	env, _ := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	deployments := operatortest.Client[*appsv1.Deployment](env)
	site := newSite(ns, "blog")
	site.Spec.Replicas = ptr.To[int32](2)
	if _, err := sites.Create(ctx, site); err != nil {
		t.Fatal(err)
	}
	want := func(what string, generation int64, ready metav1.ConditionStatus, readyReason string, progressing metav1.ConditionStatus, progressingReason string) {
		t.Helper()
		testenv.Eventually(t, 10*time.Second, what, func() error {
			s, err := sites.Live().Get(ctx, ns, "blog")
			if err != nil {
				return err
			}
			if err := hasCondition(s, v1alpha1.ConditionReady, ready, readyReason); err != nil {
				return err
			}
			return hasCondition(s, v1alpha1.ConditionProgressing, progressing, progressingReason)
		})
		s, err := sites.Live().Get(ctx, ns, "blog")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Status.Conditions {
			if c.ObservedGeneration != generation {
				t.Errorf("%s: condition %s has observedGeneration %d, want %d", what, c.Type, c.ObservedGeneration, generation)
			}
		}
	}

	want("rolling out once created", 1, metav1.ConditionFalse, "RollingOut", metav1.ConditionTrue, "RollingOut")

	rollOut(t, deployments, ns, "blog", 2)
	want("ready once the web servers are available", 1, metav1.ConditionTrue, "Available", metav1.ConditionFalse, "RolledOut")

	if _, err := sites.Modify(ctx, ns, "blog", func(s *v1alpha1.StaticSite) error {
		s.Spec.Pages["index.html"] = "<h1>New look</h1>"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want("rolling out the new pages, generation 2", 2, metav1.ConditionFalse, "RollingOut", metav1.ConditionTrue, "RollingOut")

	// The new web server never becomes available (its image cannot be
	// pulled, say) while the old two keep serving.
	if _, err := deployments.ModifyStatus(ctx, ns, "blog", func(d *appsv1.Deployment) error {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 3, UpdatedReplicas: 1,
			ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
				Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want("stalled when the Deployment exceeds its deadline", 2, metav1.ConditionFalse, "Stalled", metav1.ConditionFalse, "Stalled")

	rollOut(t, deployments, ns, "blog", 2)
	want("ready again", 2, metav1.ConditionTrue, "Available", metav1.ConditionFalse, "RolledOut")
}

// hasCondition fails unless s has a condition of type with status and
// reason.
func hasCondition(s *v1alpha1.StaticSite, typ string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(s.Status.Conditions, typ)
	if c == nil || c.Status != status || c.Reason != reason {
		return fmt.Errorf("condition %s is %+v, want status %s, reason %s", typ, c, status, reason)
	}
	return nil
}

// rollOut plays the Deployment controller: it reports the Deployment's
// latest spec rolled out, with replicas pods updated and available.
func rollOut(t *testing.T, deployments *client.Client[*appsv1.Deployment], ns, name string, replicas int32) {
	t.Helper()
	if _, err := deployments.ModifyStatus(t.Context(), ns, name, func(d *appsv1.Deployment) error {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas,
			UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
