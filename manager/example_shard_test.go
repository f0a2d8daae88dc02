package manager_test

import (
	"context"
	"log"
	"os"

	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// A controller sharded by namespace, wired by hand: what the builder's
// Sharded does. Each replica caches and reconciles the ConfigMaps of the
// namespaces its ranges hold; the ring and the controller run on every
// replica.
func ExampleManager_ShardInformer() {
	var cfg *rest.Config // from cluster.LoadConfig
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	ring, err := shard.New(mgr.Cluster(), "my-operator", os.Getenv("POD_NAME"))
	if err != nil {
		log.Fatal(err)
	}
	cms, err := informer.For[*corev1.ConfigMap](mgr.Factory(), "", object.Selector{})
	if err != nil {
		log.Fatal(err)
	}
	if err := mgr.ShardInformer(ring, shard.Namespace, cms); err != nil { // also runs the ring
		log.Fatal(err)
	}
	opts, err := mgr.ControllerOptions("configmaps")
	if err != nil {
		log.Fatal(err)
	}
	var r reconcile.Reconciler // reads ConfigMaps from cms's cache
	ctrl, err := controller.New("configmaps", r, append(opts, controller.WithSharding(ring, controller.ShardByNamespace))...)
	if err != nil {
		log.Fatal(err)
	}
	if err := ctrl.Watch(controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Add(ctrl); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Start(manager.SignalContext(context.Background())); err != nil {
		log.Fatal(err)
	}
}
