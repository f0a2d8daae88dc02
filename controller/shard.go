package controller

import (
	"context"
	"sync"

	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// ShardHashFunc places a request's object on a sharded controller's ring
// (WithSharding): its shard.Hash by the ring's field. ok is false when the
// object is unknown to this replica, such as the owner of a child event
// that this replica does not cache: the request is dropped.
type ShardHashFunc func(req reconcile.Request) (hash uint64, ok bool)

// ShardByNamespace is the ShardHashFunc of a controller sharded by
// shard.Namespace: the hash of the request's namespace, with no lookup.
func ShardByNamespace(req reconcile.Request) (uint64, bool) { return shard.Hash(req.Namespace), true }

// WithSharding makes the controller one replica's share of a sharded
// operator: it reconciles only the requests whose hash (found by hash)
// ring lets it start, and runs on every replica, also when the manager
// elects a leader (NeedLeaderElection is false). Each worker, before it
// reconciles a request, finds the hash and calls ring.Begin, and ends it
// when Reconcile returns, so that the ring hands a range over only once no
// reconcile in it is running here. A request that this replica owns
// (shard.Ring.Owns) but may not start yet (shard.Ring.MayStart: a
// handover in progress, or its Lease late in renewal) is parked, neither
// reconciled nor counted as a failure, and queued again with its reasons
// when the ring changes. A request this replica does not
// own is dropped: the replica that owns it caches the object, and its own
// informer delivers the event there; should this replica own it again at
// the ring's next change (a membership change undone before its cache
// let go of the object, so no event will come again), it is queued again
// then. A request whose hash is unknown
// (hash says !ok) is dropped too, unless the controller found its hash
// before and will retry it (a failed reconcile of an object deleted
// since).
//
// The ring is run separately (a manager runs it when added, see
// manager.Manager.Add), and the controller's informers should hold only
// this replica's shard (manager.Manager.ShardInformer); the builder's
// Sharded does both. Default: not sharded.
func WithSharding(ring *shard.Ring, hash ShardHashFunc) Option {
	return func(o *options) { o.ring, o.shardHash, o.shardingSet = ring, hash, true }
}

// NeedLeaderElection is false for a sharded controller (WithSharding),
// which runs on every replica, and true otherwise: a manager runs an
// unsharded controller only on its elected leader.
func (c *Controller) NeedLeaderElection() bool { return c.opts.ring == nil }

// sharding is a sharded controller's side of the ring: the hashes of the
// requests it will see again, and the requests parked until the ring
// changes.
type sharding struct {
	c    *Controller
	ring *shard.Ring
	hash ShardHashFunc

	mu     sync.Mutex
	known  map[reconcile.Request]uint64            // requests to be retried or parked, by hash
	parked map[reconcile.Request]reconcile.Reasons // owned requests waiting for MayStart
	// elsewhere are the requests dropped since the ring last changed
	// because another replica owns them, while this replica still knew
	// their object: queued again at the next change, in case it gives
	// them back before this replica's cache has let go of them.
	elsewhere map[reconcile.Request]reconcile.Reasons
}

func newSharding(c *Controller) *sharding {
	return &sharding{c: c, ring: c.opts.ring, hash: c.opts.shardHash,
		known: map[reconcile.Request]uint64{}, parked: map[reconcile.Request]reconcile.Reasons{}, elsewhere: map[reconcile.Request]reconcile.Reasons{}}
}

// begin decides what a worker does with req: reconcile it (ok, with the
// hash and the func that ends the ring's record of it), or leave it,
// parked or dropped. why gains the reasons it was parked with before.
func (s *sharding) begin(req reconcile.Request, why *reconcile.Reasons) (hash uint64, done func(), ok bool) {
	changed := s.ring.Changed() // before the ring is asked: see park
	h, found := s.hash(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	*why |= s.parked[req] | s.elsewhere[req]
	delete(s.parked, req)
	delete(s.elsewhere, req)
	if !found {
		h, found = s.known[req]
	}
	if !found {
		delete(s.known, req)
		s.drop(req, "its object is not in this replica's cache")
		return 0, nil, false
	}
	if done, ok := s.ring.Begin(h); ok {
		return h, done, true
	}
	owned := s.ring.Owns(h)
	if owned {
		s.known[req] = h
	} else {
		delete(s.known, req)
		s.drop(req, "another replica owns it")
	}
	select {
	case <-changed:
		// The ring changed since it was asked: ask again at once.
		s.c.queue.addHeld(req, *why)
	default:
		if owned {
			s.parked[req] = *why
		} else {
			s.elsewhere[req] = *why
		}
	}
	return 0, nil, false
}

// drop forgets req, which this replica does not reconcile. s.mu is held.
func (s *sharding) drop(req reconcile.Request, why string) {
	s.c.queue.Forget(req)
	s.c.log.V(1).Info("not reconciling: "+why, "namespace", req.Namespace, "name", req.Name)
}

// ended records how a reconcile of req at hash ended: a request that
// comes back (an error, RequeueAfter) keeps its hash, for when its object
// has left the cache meanwhile (deleted).
func (s *sharding) ended(req reconcile.Request, hash uint64, again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if again {
		s.known[req] = hash
	} else {
		delete(s.known, req)
	}
}

// unpark queues the parked requests, and those dropped as another
// replica's, again each time the ring changes, until ctx ends. A worker parks a request only if the channel it took
// before asking the ring is still open, and the channel waited on here is
// taken in the same critical section that empties the parked set, so
// every parked request is released at the first change after it was
// parked.
func (s *sharding) unpark(ctx context.Context) {
	for {
		s.mu.Lock()
		changed := s.ring.Changed()
		for req, why := range s.parked {
			s.c.queue.addHeld(req, why)
		}
		clear(s.parked)
		for req, why := range s.elsewhere {
			s.c.queue.addHeld(req, why)
		}
		clear(s.elsewhere)
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
