package informer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/steadyctl/steady/deltafifo"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// An informer's cache is fed by one or more sources: one list and watch
// each. A Factory's informer of a set of namespaces (WithNamespaces) has
// one source per namespace, since the API server lists and watches one
// namespace or all of them, nothing in between.
//
// Each source has a DeltaFIFO of its own, whose known objects are the
// cache's objects in its namespace (namespaceView). So a relist of one
// namespace — after 410 Gone, say — is a Replace that finds deletions
// among that namespace's objects only and never touches the others'; and
// a source's batch, relist included, is applied under the informer's lock
// like any other, so readers never see half of it. Sources are popped by
// goroutines of their own into the one cache; inf.mu serializes them.
// Merging N watches into one FIFO instead would need a Replace scoped to a
// namespace and would let one namespace's relist hold up the others'
// events.
type source[T object.Object] struct {
	namespace string // "" for the one source of an informer made by New
	lw        reflector.ListerWatcher
	fifo      *deltafifo.FIFO[T]
	listed    bool // its first list is in the cache; inf.mu
	// listApplied: apply has applied a list, which listDone reports; inf.mu
	listApplied bool
	progress    sourceProgress
	// refl is the source's reflector once Start has made it; Progress asks
	// it when anything last arrived.
	refl atomic.Pointer[reflector.Reflector[T]]
}

// addSources gives inf a source per ListerWatcher, in the order of
// inf.namespaces.
func (inf *Informer[T]) addSources(lws []reflector.ListerWatcher) {
	for i, lw := range lws {
		src := &source[T]{lw: lw}
		var known deltafifo.KnownObjects[T] = inf.cache
		if len(lws) > 1 {
			src.namespace = inf.namespaces[i]
			known = namespaceView[T]{inf.cache, src.namespace}
			if inf.sourceIndex == nil {
				inf.sourceIndex = make(map[string]int, len(lws))
			}
			inf.sourceIndex[src.namespace] = i
		}
		src.progress.init(inf.clock)
		src.fifo = deltafifo.New[T](known, deltafifo.WithLogger(inf.log), deltafifo.WithProgress(src.progress.advance))
		inf.sources = append(inf.sources, src)
	}
}

// namespaceView is a Cache's objects in one namespace, as one source's
// FIFO knows them.
type namespaceView[T object.Object] struct {
	c  *Cache[T]
	ns string
}

func (v namespaceView[T]) ListKeys() []string {
	keys, _ := v.c.IndexKeys(NamespaceIndex, v.ns) // the index always exists
	return keys
}

func (v namespaceView[T]) GetByKey(key string) (T, bool) { return v.c.GetByKey(key) }

// reflectors makes a reflector per source. inf.mu is held.
func (inf *Informer[T]) reflectors() ([]*reflector.Reflector[T], error) {
	inf.useWireEncodings()
	user := inf.errHandler
	transform := inf.transformFunc()
	out := make([]*reflector.Reflector[T], 0, len(inf.sources))
	for _, src := range inf.sources {
		name, log := inf.name, inf.log
		if src.namespace != "" {
			name += " namespace " + src.namespace
			log = log.WithValues("namespace", src.namespace)
		}
		ropts := append([]reflector.Option{reflector.WithName(name), reflector.WithLogger(log)}, inf.ropts...)
		ropts = append(ropts, reflector.WithWatchErrorHandler(func(err error) {
			if src.namespace != "" {
				err = fmt.Errorf("namespace %q: %w", src.namespace, err)
			}
			inf.sync.setError(err)
			if user != nil {
				user(err)
			}
		}))
		if transform != nil {
			ropts = append(ropts, reflector.WithTransform(transform))
		}
		// The reflector times arrivals on the informer's clock, for Progress.
		ropts = append(ropts, reflector.WithShardSelector(inf.shardSelector), reflector.WithEventClock(inf.clock))
		refl, err := reflector.New[T](src.lw, src.fifo, ropts...)
		if err != nil {
			return nil, err
		}
		src.refl.Store(refl)
		out = append(out, refl)
	}
	return out, nil
}

// run runs every source's reflector and pops its FIFO into the cache until
// ctx is done, and returns once they have all stopped.
func (inf *Informer[T]) run(ctx context.Context, refls []*reflector.Reflector[T]) {
	var wg sync.WaitGroup
	for i, src := range inf.sources {
		wg.Go(func() { _ = refls[i].Start(ctx) })
		wg.Go(func() {
			apply := func(b deltafifo.Batch[T]) error { return inf.apply(src, b) }
			for ctx.Err() == nil {
				err := src.fifo.Pop(ctx, apply)
				inf.listDone(src)
				if err != nil && ctx.Err() == nil && !errors.Is(err, deltafifo.ErrClosed) {
					inf.log.Error(err, "applying changes to the cache", "namespace", src.namespace)
				}
			}
			// Wakes a reflector waiting in Replace for a batch to finish.
			src.fifo.Close()
		})
	}
	wg.Wait()
}

// listed records that src's first list is in the cache and reports
// whether every source's is. inf.mu is held.
func (inf *Informer[T]) listed(src *source[T]) bool {
	src.listed = true
	for _, s := range inf.sources {
		if !s.listed {
			return false
		}
	}
	return true
}

// lastSyncResourceVersion is the resourceVersion the cache reflects (see
// LastSyncResourceVersion): its only source's, or the smallest of its
// sources' once each has one.
func (inf *Informer[T]) lastSyncResourceVersion() string {
	if len(inf.sources) == 1 {
		return inf.sources[0].fifo.LastStoreSyncResourceVersion()
	}
	var least uint64
	for i, src := range inf.sources {
		rv, err := strconv.ParseUint(src.fifo.LastStoreSyncResourceVersion(), 10, 64)
		if err != nil {
			return "" // not listed yet, or not an etcd revision
		}
		if i == 0 || rv < least {
			least = rv
		}
	}
	return strconv.FormatUint(least, 10)
}
