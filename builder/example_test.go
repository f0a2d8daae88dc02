package builder_test

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// An operator in twenty lines: a Deployment reconciler that acts only on
// spec changes and records what it has seen in status.
func Example() {
	var cfg *rest.Config // from cluster.LoadConfig or testenv
	mgr, _ := manager.New(cfg, manager.WithMetricsAddr(":8080"), manager.WithHealthAddr(":8081"))
	deployments, _ := client.For[*appsv1.Deployment](mgr.Factory(), "")

	reconciler := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		d, err := deployments.Get(ctx, req.Namespace, req.Name) // from the cache
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil // deleted: nothing to do
		} else if err != nil {
			return reconcile.Result{}, err
		}
		controller.LoggerFrom(ctx).Info("reconciling", "generation", d.Generation)
		// ... make the world match d.Spec ...
		_, err = deployments.ModifyStatus(ctx, req.Namespace, req.Name, func(d *appsv1.Deployment) error {
			d.Status.ObservedGeneration = d.Generation
			return nil
		})
		return reconcile.Result{}, err
	})
	_ = builder.ControllerManagedBy(mgr).
		For(builder.Kind(&appsv1.Deployment{}, predicate.GenerationChanged[*appsv1.Deployment]())).
		WithOptions(controller.WithMaxConcurrentReconciles(4)).
		Complete(reconciler)
	_ = mgr.Start(manager.SignalContext(context.Background()))
}
