// Command controller-runtime is the controller-runtime child of the
// end-to-end benchmark (bench/cmd/e2e): a controller of ConfigMaps or of
// the custom resource Widget, written with controller-runtime's manager and
// builder, running the shared reconcile logic of package internal/e2e. The parent builds and runs it; see that
// command.
package main

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
)

func main() { e2e.Main("controller-runtime", start) }

// reconciler reads an object through the manager's client (served from
// the cache) and, when the shared logic says so, writes the observed
// annotation to the API server.
type reconciler struct {
	client    client.Client
	newObject func() client.Object // a *corev1.ConfigMap or a *v1alpha1.Widget
	logic     *e2e.Logic
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.newObject() // the cached client hands out a copy
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		r.logic.Observe(nil)
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	want, write := r.logic.Observe(obj)
	if !write {
		return ctrl.Result{}, nil
	}
	e2e.SetObserved(obj, want)
	return ctrl.Result{}, r.logic.Wrote(r.client.Update(ctx, obj))
}

// start wires the controller as a controller-runtime operator would: a
// manager caching the one namespace, with the metrics server, health probes
// and leader election off, and a controller from the builder. For Widgets
// the manager's scheme is client-go's with Widget added, as kubebuilder's
// main.go builds it.
func start(ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic) (e2e.Running, error) {
	ctrl.SetLogger(logr.Discard()) // steady's controller logs nowhere by default either
	copts := cache.Options{DefaultNamespaces: map[string]cache.Config{o.Namespace: {}}}
	if o.ManagedFields == "drop" { // the default keeps them
		copts.DefaultTransform = cache.TransformStripManagedFields()
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 o.Kind.Scheme(),
		Cache:                  copts,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return e2e.Running{}, err
	}
	// The informer the builder's controller will use: asked for before the
	// manager starts, it is created without waiting, and its HasSynced is
	// the sync we measure.
	newObject := func() client.Object { return &corev1.ConfigMap{} }
	if o.Kind == e2e.KindCR {
		newObject = func() client.Object { return &v1alpha1.Widget{} }
	}
	inf, err := mgr.GetCache().GetInformer(ctx, newObject())
	if err != nil {
		return e2e.Running{}, err
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(newObject()).
		Named(o.Kind.Resource()).
		WithOptions(controller.Options{MaxConcurrentReconciles: o.Workers}).
		Complete(&reconciler{client: mgr.GetClient(), newObject: newObject, logic: l})
	if err != nil {
		return e2e.Running{}, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return e2e.Running{Synced: inf.HasSynced, Done: done}, nil
}
