package manager_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// Controllers remove their handlers as they stop, before the caches stop:
// the manager's shutdown must not release the informers they leave, which
// other controllers' last reconciles may still read.
func TestShutdownReleasesNoInformer(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	createConfigMaps(t, ns, 1)
	m, err := manager.New(testkit.Env(t).Config, manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	cms, err := client.For[*corev1.ConfigMap](m.Factory(), ns)
	if err != nil {
		t.Fatal(err)
	}
	inf := cms.Informer()
	reconciled := make(chan struct{}, 1)
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		select {
		case reconciled <- struct{}{}:
		default:
		}
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	select {
	case <-reconciled:
	case <-time.After(30 * time.Second):
		t.Fatal("no reconcile")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if inf.Released() {
		t.Error("the manager released the ConfigMap informer while shutting down")
	}
}
