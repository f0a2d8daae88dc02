package informer

import (
	"fmt"

	"github.com/steadyctl/steady/reflector"
)

// SetShardSelector keeps the informer to one shard of its objects (see
// reflector.WithShardSelector for the syntax; "" for every object), for a
// controller that runs as one of several replicas, each owning a range of
// the hash space. An informer not started yet just takes it. A running
// one relists each of its sources with the new selector, as a Replace: the
// objects that left the shard are deleted from the cache and its handlers
// get Delete events (event.Delete with DeleteStateUnknown), the objects
// that entered it are added with Create events, and the others are left
// as they are, with no event. Until that relist lands, the cache holds the
// old shard's objects. Setting the selector in use changes nothing. A
// malformed selector is an error naming it, and the old one stays.
func (inf *Informer[T]) SetShardSelector(sel string) error {
	if _, err := reflector.ParseShardSelector(sel); err != nil {
		return fmt.Errorf("informer %s: SetShardSelector: %w", inf.name, err)
	}
	// Under the lock, so that concurrent calls reach the reflectors in the
	// order they set the informer's selector.
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.shardSelector = sel
	for _, r := range inf.refls {
		if err := r.SetShardSelector(sel); err != nil {
			return fmt.Errorf("informer %s: SetShardSelector: %w", inf.name, err) // parsed above: not reached
		}
	}
	return nil
}

// ShardSelector returns the informer's shard selector as it was set
// (KindOptions.ShardSelector or SetShardSelector); "" for none.
func (inf *Informer[T]) ShardSelector() string {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.shardSelector
}

// ShardMode tells who keeps the cache to its shard selector (see
// reflector.ShardMode): reflector.ShardServer when the API server filters,
// reflector.ShardClient when the informer drops the other objects itself
// because the server does not (the ShardedListAndWatch feature gate is
// off). The cache holds the same objects either way. An informer of
// several namespaces answers ShardClient if any of its sources does, and
// ShardUnknown until every source has listed; before Start it answers
// ShardUnknown with a selector, ShardNone without.
func (inf *Informer[T]) ShardMode() reflector.ShardMode {
	inf.mu.Lock()
	refls, sel := inf.refls, inf.shardSelector
	inf.mu.Unlock()
	if len(refls) == 0 {
		if sel == "" {
			return reflector.ShardNone
		}
		return reflector.ShardUnknown
	}
	mode := reflector.ShardNone
	for _, r := range refls {
		switch m := r.ShardMode(); {
		case m == reflector.ShardClient:
			return m
		case m == reflector.ShardUnknown, mode == reflector.ShardNone:
			mode = m
		}
	}
	return mode
}
