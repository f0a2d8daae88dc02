package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/condition"
	"github.com/steadyctl/steady/docs/tutorial/05-predicates/api/v1alpha1"
)

// conditions returns the site's Ready and Progressing conditions, read
// from the state of its Deployment d.
func conditions(site *v1alpha1.StaticSite, d *appsv1.Deployment) (ready, progressing metav1.Condition) {
	want, st := ptr.Deref(site.Spec.Replicas, 1), d.Status
	var rollingOut string // what the rollout waits for; "" when done
	switch {
	case st.ObservedGeneration < d.Generation:
		rollingOut = "waiting for the Deployment controller to see the new spec"
	case st.UpdatedReplicas < want:
		rollingOut = fmt.Sprintf("%d of %d web servers updated", st.UpdatedReplicas, want)
	case st.AvailableReplicas < want:
		rollingOut = fmt.Sprintf("%d of %d web servers available", st.AvailableReplicas, want)
	case st.Replicas > st.UpdatedReplicas:
		rollingOut = fmt.Sprintf("%d old web servers still running", st.Replicas-st.UpdatedReplicas)
	}
	ready = metav1.Condition{Type: v1alpha1.ConditionReady}
	progressing = metav1.Condition{Type: v1alpha1.ConditionProgressing}
	switch {
	case rollingOut == "":
		ready.Status, ready.Reason = metav1.ConditionTrue, "Available"
		ready.Message = fmt.Sprintf("%d web servers serve the current pages", want)
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionFalse, "RolledOut", ready.Message
	case stalled(d):
		// The Deployment controller gave up waiting (progressDeadlineSeconds):
		// a bad image, no room on the nodes. Nothing moves until someone acts.
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "Stalled", rollingOut
		progressing.Status, progressing.Reason = metav1.ConditionFalse, "Stalled"
		progressing.Message = "the rollout exceeded its deadline: " + rollingOut
	default:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "RollingOut", rollingOut
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, "RollingOut", rollingOut
	}
	return ready, progressing
}

// stalled reports whether the Deployment controller says d's rollout
// exceeded its progress deadline.
func stalled(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded"
		}
	}
	return false
}

// writeConditions sets conds in the site's status, stamped with the
// generation of site, the spec this reconcile acted on. The write goes to
// the status subresource, and only if a condition changed.
func (r *StaticSiteReconciler) writeConditions(ctx context.Context, site *v1alpha1.StaticSite, conds ...metav1.Condition) error {
	_, err := r.sites.ModifyStatus(ctx, site.Namespace, site.Name, func(latest *v1alpha1.StaticSite) error {
		for _, c := range conds {
			// site, not latest, gives the observedGeneration: latest is read
			// again for the write and may carry a newer spec, which this
			// reconcile has not acted on; the next one will.
			if _, err := condition.Set(site, &latest.Status.Conditions, c); err != nil {
				return err
			}
		}
		return nil
	})
	// A site deleted meanwhile has no status to write.
	return client.IgnoreNotFound(err)
}
