package builder

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// Sharded makes the controller one replica's share of a sharded
// operator, over ring by field (shard.UID or shard.Namespace): the For
// kind's informer lists and watches only this replica's shard, following
// the ring's ranges as members come and go (manager.Manager.ShardInformer),
// the controller reconciles only what the ring lets it start
// (controller.WithSharding) and runs on every replica, also under leader
// election, and the manager runs the ring. Requests are placed on the ring
// by the uid of the For object in this replica's cache (a deleted object's
// by the uid its delete event carried), or by their namespace.
//
// With shard.Namespace, the informers of Owns kinds are sharded the same
// way: children live in their owner's namespace. With shard.UID they are
// not, as a child's uid says nothing of its owner's: every replica caches
// every child, and only the replica that caches the owner reconciles a
// child's event; the others drop it. A cluster-scoped kind has no
// namespace: shard it by uid. See "Sharding" in the package
// documentation.
func (b *Builder) Sharded(ring *shard.Ring, field shard.Field) *Builder {
	b.shard = &shardWiring{ring: ring, field: field}
	return b
}

// shardWiring is what Sharded asked for, and what building found.
type shardWiring struct {
	ring  *shard.Ring
	field shard.Field

	informers []manager.ShardedInformer // to keep to the shard
	hash      controller.ShardHashFunc  // set by the For input with shard.UID
}

// wire records inf, an input's informer in role r, and returns the
// handler its events go to.
func wire[T object.Object](sw *shardWiring, r role, inf *informer.Informer[T], h handler.EventHandler[T]) handler.EventHandler[T] {
	if sw == nil {
		return h
	}
	switch {
	case r == forRole:
		sw.informers = append(sw.informers, inf)
		if sw.field == shard.UID {
			k := &uidKeys[T]{inf: inf, deleted: map[reconcile.Request]uint64{}}
			sw.hash = k.hash
			return &remembering[T]{EventHandler: h, k: k}
		}
	case r == ownsRole && sw.field == shard.Namespace:
		sw.informers = append(sw.informers, inf)
	}
	return h
}

// uidKeys places requests on the ring by the uid of the For object in
// this replica's cache, or, for one that was deleted, by the uid its
// delete event carried, until a worker has looked it up: the controller
// keeps the hash of a request it retries (controller.WithSharding).
type uidKeys[T object.Object] struct {
	inf *informer.Informer[T]

	mu      sync.Mutex
	deleted map[reconcile.Request]uint64
}

func (k *uidKeys[T]) hash(req reconcile.Request) (uint64, bool) {
	k.mu.Lock()
	h, deleted := k.deleted[req]
	delete(k.deleted, req)
	k.mu.Unlock()
	if obj, ok := k.inf.Cache().Get(req.Namespace, req.Name); ok {
		return shard.Hash(string(obj.GetUID())), true
	}
	return h, deleted
}

// remembering is the For kind's handler, which notes the uid of each
// deleted object as the deletion's request is queued (not when a
// predicate filters it out, which would leave the note behind), and
// forgets it when an object of that name comes back.
type remembering[T object.Object] struct {
	handler.EventHandler[T]
	k *uidKeys[T]
}

func (r *remembering[T]) Create(ctx context.Context, e event.Create[T], q handler.Queue) {
	r.forget(e.Object)
	r.EventHandler.Create(ctx, e, q)
}

func (r *remembering[T]) Delete(ctx context.Context, e event.Delete[T], q handler.Queue) {
	if !event.IsNil(e.Object) && e.Object.GetUID() != "" {
		q = &noting[T]{q: q, k: r.k, req: reconcile.Request{NamespacedName: e.Key}, hash: shard.Hash(string(e.Object.GetUID()))}
	}
	r.EventHandler.Delete(ctx, e, q)
}

// noting is the queue a deletion's event goes to: it notes the deleted
// object's hash when the handler queues its request.
type noting[T object.Object] struct {
	q    handler.Queue
	k    *uidKeys[T]
	req  reconcile.Request
	hash uint64
}

func (n *noting[T]) Add(req reconcile.Request) { n.AddWithOpts(handler.AddOpts{}, req) }

func (n *noting[T]) AddWithOpts(o handler.AddOpts, req reconcile.Request) {
	if req == n.req {
		n.k.mu.Lock()
		n.k.deleted[req] = n.hash
		n.k.mu.Unlock()
	}
	handler.AddWithOpts(n.q, o, req)
}

func (r *remembering[T]) forget(obj T) {
	r.k.mu.Lock()
	delete(r.k.deleted, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}})
	r.k.mu.Unlock()
}

// check reports what Sharded was given wrong; sw may be nil (not sharded).
func (sw *shardWiring) check() error {
	switch {
	case sw == nil:
		return nil
	case sw.ring == nil:
		return errors.New("Sharded: nil ring")
	case sw.field != shard.UID && sw.field != shard.Namespace:
		return fmt.Errorf("Sharded(ring %q, %q): unknown field: want shard.UID or shard.Namespace", sw.ring.Name(), sw.field)
	}
	if sw.field == shard.Namespace {
		sw.hash = controller.ShardByNamespace
	}
	return nil
}
