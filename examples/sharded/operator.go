package main

import (
	"context"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// The operator's contract with its users: what they put on a ConfigMap, and
// what the operator writes back.
const (
	// enabledLabel on a ConfigMap, "true", puts it in the operator's care.
	enabledLabel = "sharded.steady.dev/enabled"
	// reconciledByAnnotation names the replica that last reconciled the
	// ConfigMap: its owner on the ring.
	reconciledByAnnotation = "sharded.steady.dev/reconciled-by"
)

// operator is one replica's reconciler: it annotates each ConfigMap of its
// shard with the replica's identity. The reconciler itself knows nothing of
// sharding; the builder's Sharded makes sure it only sees its shard.
type operator struct {
	identity string
	cms      *client.Client[*corev1.ConfigMap]

	// track, if set, is called as a reconcile of key starts and returns
	// the func called as it ends: the story's detector of two replicas
	// reconciling one key at once.
	track func(key, replica string) (end func())

	reconciles atomic.Int64 // Reconcile calls
	writes     atomic.Int64 // annotations written
}

func (o *operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if o.track != nil {
		defer o.track(req.String(), o.identity)()
	}
	o.reconciles.Add(1)
	cm, err := o.cms.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err) // deleted: nothing to do
	}
	if cm.Annotations[reconciledByAnnotation] == o.identity {
		return reconcile.Result{}, nil // our own write, come back as an event
	}
	wrote := false
	_, err = o.cms.Modify(ctx, req.Namespace, req.Name, func(cm *corev1.ConfigMap) error {
		wrote = cm.Annotations[reconciledByAnnotation] != o.identity
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[reconciledByAnnotation] = o.identity
		return nil
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if wrote {
		o.writes.Add(1)
		controller.LoggerFrom(ctx).V(1).Info("annotated", reconciledByAnnotation, o.identity)
	}
	return reconcile.Result{}, nil
}

// replica is one running copy of the operator: its manager, its membership
// of the ring and its reconciler.
type replica struct {
	mgr  *manager.Manager
	ring *shard.Ring
	op   *operator
}

// newReplica wires a replica named identity into ring ringName: a manager
// that caches only ConfigMaps labelled enabledLabel=true, and the one
// controller, sharded by uid. ringOpts configure the ring (its namespace,
// lease timing), mgrOpts the manager (where it caches, its logger).
func newReplica(cfg *rest.Config, ringName, identity string, ringOpts []shard.Option, mgrOpts ...manager.Option) (*replica, error) {
	enabled := informer.KindOptions{Selector: object.Selector{Labels: enabledLabel + "=true"}}
	mgrOpts = append([]manager.Option{manager.WithScheme(clientgoscheme.Scheme), manager.WithKind(schema.GroupKind{Kind: "ConfigMap"}, enabled)}, mgrOpts...)
	mgr, err := manager.New(cfg, mgrOpts...)
	if err != nil {
		return nil, fmt.Errorf("replica %s: manager: %w", identity, err)
	}
	ring, err := shard.New(mgr.Cluster(), ringName, identity, ringOpts...)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", identity, err)
	}
	cms, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", identity, err)
	}
	op := &operator{identity: identity, cms: cms}
	// Sharded: the ConfigMap informer lists and watches only this
	// replica's shard of the uids, and the controller reconciles only what
	// the ring lets it start. The client above reads the same informer.
	err = builder.ControllerManagedBy(mgr).Named("sharded").
		For(builder.Kind(&corev1.ConfigMap{})).
		Sharded(ring, shard.UID).
		WithOptions(controller.WithMaxConcurrentReconciles(4)).
		Complete(op)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", identity, err)
	}
	return &replica{mgr: mgr, ring: ring, op: op}, nil
}

// cached is the number of ConfigMaps in the replica's cache: its shard.
func (r *replica) cached() int { return len(r.op.cms.Informer().Cache().List()) }
