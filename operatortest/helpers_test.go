package operatortest_test

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// observer is the reconciler most tests here run: it records in a
// Deployment's status the generation it has seen.
type observer struct {
	deployments *client.Client[*appsv1.Deployment]
}

func (r *observer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	_, err := r.deployments.ModifyStatus(ctx, req.Namespace, req.Name, func(d *appsv1.Deployment) error {
		d.Status.ObservedGeneration = d.Generation
		return nil
	})
	return reconcile.Result{}, client.IgnoreNotFound(err)
}

// runObserver is a setup for operatortest.New: the observer, watching
// Deployments.
func runObserver(mgr *manager.Manager) error {
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).Complete(&observer{deployments})
}

// newDeployment returns a Deployment of one pause container.
func newDeployment(namespace, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}
