package manager

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/shard"
)

// ShardedInformer is an informer that a ring keeps to this replica's
// shard (ShardInformer): an *informer.Informer of any kind.
type ShardedInformer interface {
	Name() string
	SetShardSelector(sel string) error
	ShardMode() reflector.ShardMode
}

// shardedInformer is an informer ShardInformer follows, and by what.
type shardedInformer struct {
	inf   ShardedInformer
	ring  *shard.Ring
	field shard.Field
}

// ShardInformer keeps inf to this replica's shard of ring, by field: it
// sets inf's shard selector to the ranges the ring's Assignment gives this
// replica, now and whenever ring.Changed says they changed, so that the
// API server sends this replica only the objects it owns (or, with the
// ShardedListAndWatch feature gate off, the informer drops the others
// itself; see informer.Informer.SetShardSelector). It adds ring to the
// manager (see Add). Call it before Start, as the builder's Sharded does;
// a controller reading inf is sharded with controller.WithSharding.
//
// The selector follows the Assignment, not the replica's health: a
// replica late in renewing its Lease keeps its shard cached, reconciling
// nothing until it has renewed (shard.Ring.MayStart), so that a moment's
// delay costs no relist. A replica that owns nothing — before it has
// joined, once its Lease is gone (expired and deleted by the others) —
// lists and watches with the selector of the one hash 0, which in
// practice selects nothing, since the API server has no selector of
// nothing and an empty one selects everything: it caches nothing of the
// kind, and its sharded controllers reconcile nothing, as they own no
// hash.
//
// Every holder of inf sees only the shard: an unsharded controller that
// shares the informer (the same kind, namespace and selectors) must not
// need the rest. Following one informer by two rings or fields is an
// error naming it; following it again alike does nothing.
func (m *Manager) ShardInformer(ring *shard.Ring, field shard.Field, inf ShardedInformer) error {
	if ring == nil || inf == nil {
		return errors.New("manager: ShardInformer: nil ring or informer")
	}
	if field != shard.UID && field != shard.Namespace {
		return fmt.Errorf("manager: ShardInformer(ring %q, informer %s): unknown field %q: want shard.UID or shard.Namespace", ring.Name(), inf.Name(), field)
	}
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return fmt.Errorf("manager: ShardInformer(ring %q, informer %s): after Start", ring.Name(), inf.Name())
	}
	for _, s := range m.sharded {
		if s.inf != inf {
			continue
		}
		m.mu.Unlock()
		if s.ring == ring && s.field == field {
			return nil
		}
		return fmt.Errorf("manager: ShardInformer(ring %q, %s): informer %s already follows ring %q by %s", ring.Name(), field, inf.Name(), s.ring.Name(), s.field)
	}
	m.mu.Unlock()
	if err := inf.SetShardSelector(shardSelector(ring, field)); err != nil {
		return fmt.Errorf("manager: ShardInformer(ring %q): %w", ring.Name(), err)
	}
	s := shardedInformer{inf: inf, ring: ring, field: field}
	f := &follower{s: s, log: m.log.WithValues("ring", ring.Name(), "informer", inf.Name())}
	if err := m.Add(ring); err != nil {
		return err
	}
	if err := m.Add(f); err != nil {
		return err
	}
	m.mu.Lock()
	m.sharded = append(m.sharded, s)
	m.mu.Unlock()
	return nil
}

// shardSelector is the selector of the ranges ring's Assignment gives
// this replica by field, or of the hash 0 alone when it gives none.
func shardSelector(ring *shard.Ring, field shard.Field) string {
	sel, err := ring.Assignment().Selector(ring.Identity(), field)
	if err == nil {
		return sel
	}
	sel, _ = shard.Selector(field, []shard.Range{{Start: 0, End: 1}}) // a valid range: cannot fail
	return sel
}

// follower keeps an informer's shard selector to its ring's ranges.
type follower struct {
	s   shardedInformer
	log logr.Logger
}

func (f *follower) NeedLeaderElection() bool { return false }

func (f *follower) Start(ctx context.Context) error {
	last := ""
	for {
		changed := f.s.ring.Changed()
		if sel := shardSelector(f.s.ring, f.s.field); sel != last {
			if err := f.s.inf.SetShardSelector(sel); err != nil {
				return err // a selector of ours that does not parse: a bug
			}
			f.log.V(1).Info("shard selector set", "members", f.s.ring.Members())
			last = sel
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}
