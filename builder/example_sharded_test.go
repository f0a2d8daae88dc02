package builder_test

import (
	"context"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// N replicas of one operator, each reconciling about 1/N of the
// Deployments: every replica runs this, with its pod name as identity.
// Leader election stays on for the operator's singleton controllers; the
// sharded one runs on every replica.
func ExampleBuilder_Sharded() {
	cfg, _ := cluster.LoadConfig()
	mgr, _ := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithLeaderElection(manager.LeaderElection{Name: "my-operator"}))
	ring, _ := shard.New(mgr.Cluster(), "my-operator", os.Getenv("POD_NAME"), shard.WithNamespace("my-operator-system"))

	var r reconcile.Reconciler // reads Deployments from the manager's caches, as ever
	_ = builder.ControllerManagedBy(mgr).
		For(builder.Kind(&appsv1.Deployment{})).
		Sharded(ring, shard.UID). // this replica caches and reconciles its shard only
		Complete(r)
	_ = mgr.Start(manager.SignalContext(context.Background()))
}
