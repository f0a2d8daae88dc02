package builder_test

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// An operator in twenty lines: a Deployment reconciler that acts only on
// spec changes and records what it has seen in status.
func Example() {
	cfg, _ := cluster.LoadConfig() // --kubeconfig, $KUBECONFIG, in-cluster, ~/.kube/config
	mgr, _ := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithMetricsAddr(":8080"), manager.WithHealthAddr(":8081"))
	deployments, _ := client.For[*appsv1.Deployment](mgr.Factory(), "")

	reconciler := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		d, err := deployments.Get(ctx, req.Namespace, req.Name) // from the cache
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err) // deleted: nothing to do; else retried
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
