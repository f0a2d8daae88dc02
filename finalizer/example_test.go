package finalizer_test

import (
	"context"
	"log"

	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// dns stands for an external system: each ConfigMap names a record there
// that must go when the ConfigMap goes.
var dns interface {
	Ensure(ctx context.Context, name, address string) error
	Delete(ctx context.Context, name string) error // nil if already gone
}

// An operator that keeps a DNS record per ConfigMap: Apply creates or
// updates it, Cleanup deletes it, and the finalizer makes sure no ConfigMap
// is gone before its record is. It needs a cluster, so it does not run as a
// test; finalizer_test.go runs the same calls against a local control plane.
func ExampleNew() {
	cfg, err := cluster.LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	configMaps, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
	if err != nil {
		log.Fatal(err)
	}
	r, err := finalizer.New(configMaps, "dns.example.com/record", finalizer.Funcs[*corev1.ConfigMap]{
		Apply: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			return reconcile.Result{}, dns.Ensure(ctx, cm.Name, cm.Data["address"])
		},
		Cleanup: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			// An error keeps the finalizer, and the ConfigMap, and retries.
			return reconcile.Result{}, dns.Delete(ctx, cm.Name)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Start(manager.SignalContext(context.Background())); err != nil {
		log.Fatal(err)
	}
}
