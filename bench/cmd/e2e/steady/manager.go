//go:build e2e_manager

package main

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
)

// runManaged wires the same controller as run, the way an operator built
// on steady's manager does: manager.New with the kind's scheme, caches of
// the run's namespace, and builder.ControllerManagedBy. The manager links
// what the plain packages do not (its Lease elector, event writers, secure
// serving and webhook server), so this child measures what such an
// operator pays for it; it is built only with the tag
// e2e_manager (the parent's -steady manager), so that the default child
// does not link the manager. No leader election, metrics or health
// server, as the controller-runtime child has none.
func runManaged[T object.Object](ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic, writer writerFunc[T], st settings) (e2e.Running, error) {
	mgr, err := manager.New(cfg, manager.WithScheme(o.Kind.Scheme()), manager.WithNamespace(o.Namespace),
		manager.WithKeepManagedFields(o.ManagedFields == "keep"), manager.WithThrottle(cluster.NoThrottle), manager.WithFastPaths(!st.stock), manager.WithoutFastPaths(st.slow...))
	if err != nil {
		return e2e.Running{}, err
	}
	// Namespace "": the informer the builder's For makes, of the
	// factory's namespaces.
	r, inf, err := newReconciler(mgr.Factory(), "", l, writer)
	if err != nil {
		return e2e.Running{}, err
	}
	var obj T
	err = builder.ControllerManagedBy(mgr).For(builder.Kind(obj)).Named(o.Kind.Resource()).
		WithOptions(append(st.copts, controller.WithMaxConcurrentReconciles(o.Workers))...).Complete(r)
	if err != nil {
		return e2e.Running{}, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return e2e.Running{Synced: inf.HasSynced, Done: done}, nil
}
