package reflector

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ShardMode tells who keeps the reflector to its shard selector, as far as
// the latest list told: ShardNone without a selector, ShardUnknown before
// the first list, then ShardServer or ShardClient.
func (r *Reflector[T]) ShardMode() ShardMode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shardMode
}

// ShardSelector returns the shard selector in use, in the server's
// normalized form; "" for none.
func (r *Reflector[T]) ShardSelector() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shard == nil {
		return ""
	}
	return r.shard.selector
}

// SetShardSelector changes the shard selector (see WithShardSelector; ""
// for every object). A running reflector ends its watch and relists with
// the new selector, not older than the newest resourceVersion it has seen,
// and hands the list to its store as one Replace: objects that left the
// shard are deleted from the store, objects that entered it are added.
// Setting the selector in use changes nothing. A malformed selector is an
// error naming it, and the old one stays.
func (r *Reflector[T]) SetShardSelector(sel string) error {
	f, err := newShardFilter(sel)
	if err != nil {
		return fmt.Errorf("reflector %s: SetShardSelector: %w", r.o.name, err)
	}
	r.mu.Lock()
	if r.shard.String() == f.String() {
		r.mu.Unlock()
		return nil
	}
	r.setShard(f)
	if r.initialSync {
		r.needRelist, r.relistRV = true, r.lastRV
	}
	if r.stopWatch != nil {
		r.stopWatch()
	}
	r.mu.Unlock()
	r.log.Info("shard selector changed; relisting", "shardSelector", f.String())
	return nil
}

// setShard installs f; r.mu is held, or r is new.
func (r *Reflector[T]) setShard(f *shardFilter) {
	r.shard, r.shardMode = f, ShardNone
	if f != nil {
		r.shardMode = ShardUnknown
	}
}

// currentShard is the shard filter for the next request.
func (r *Reflector[T]) currentShard() *shardFilter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shard
}

// String is the selector, "" for nil.
func (f *shardFilter) String() string {
	if f == nil {
		return ""
	}
	return f.selector
}

// setShardMode records what a list response said about f, logging each
// change of mode once.
func (r *Reflector[T]) setShardMode(f *shardFilter, m ShardMode, why string) {
	r.mu.Lock()
	changed := r.shard == f && r.shardMode != m
	if changed {
		r.shardMode = m
	}
	r.mu.Unlock()
	if changed {
		r.log.Info("shard selector mode", "mode", m.String(), "shardSelector", f.String(), "reason", why)
	}
}

// noteShardInfo reads from a list response whether the server applied f.
func (r *Reflector[T]) noteShardInfo(f *shardFilter, list runtime.Object, lm metav1.ListInterface) {
	if f == nil {
		return
	}
	if _, ok := shardInfo(list, lm); ok {
		r.setShardMode(f, ShardServer, "the API server echoed ListMeta.ShardInfo")
		return
	}
	r.setShardMode(f, ShardClient, "the API server did not echo ListMeta.ShardInfo (feature gate ShardedListAndWatch off?); filtering client-side")
}

// outsideShard: the server sent an object outside f. Even a server that
// applied the selector to the list may not on a watch (another
// kube-apiserver behind the same load balancer, without the gate).
func (r *Reflector[T]) outsideShard(f *shardFilter) {
	r.mu.Lock()
	server := r.shard == f && r.shardMode == ShardServer
	r.mu.Unlock()
	if server {
		r.setShardMode(f, ShardClient, "the API server sent an object outside the shard selector; filtering client-side")
	}
}

// probeShard asks the server, with a list of at most one object, whether
// it applies f. A streamed list (WatchList) cannot tell: its closing
// bookmark carries no ShardInfo, and a server without the feature gate
// accepts the selector on a watch and ignores it.
func (r *Reflector[T]) probeShard(ctx context.Context, f *shardFilter) error {
	if f == nil {
		return nil
	}
	list, err := r.lw.List(ctx, metav1.ListOptions{Limit: 1, ShardSelector: f.selector})
	if err != nil {
		return err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return fmt.Errorf("%T is not a list: %w", list, err)
	}
	r.noteShardInfo(f, list, lm)
	return nil
}
