package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/object"
)

// Store receives what the reflector observes. deltafifo.FIFO implements it.
type Store[T object.Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace is a complete list as of resourceVersion.
	Replace(list []T, resourceVersion string) error
	Resync() error
	// Bookmark says the watch reached resourceVersion with no object change.
	Bookmark(resourceVersion string)
}

// Reflector keeps a Store in step with the API server: it lists, then
// watches from the list's resourceVersion, and relists when the watch can no
// longer continue. See the package documentation for the details.
type Reflector[T object.Object] struct {
	lw    ListerWatcher
	store Store[T]
	o     *options
	xform func(T) (T, error)
	log   logr.Logger

	// lastEvent is when anything (bookmarks included) last arrived, as a
	// duration since eventBase plus one, so that zero means never: one
	// monotonic reading per event, half the cost of clock.Now, and no lock.
	events    clock.PassiveClock
	eventBase time.Time
	lastEvent atomic.Int64

	mu          sync.Mutex
	lastRV      string // newest resourceVersion seen
	initialSync bool   // the first Replace reached the store
	streamOff   bool   // WatchList failed once; list+watch from now on
	needRelist  bool
	relistRV    string       // if set, relist "not older than" this first
	shard       *shardFilter // nil: no shard selector
	shardMode   ShardMode
	stopWatch   context.CancelFunc // ends the current watch; nil while none runs
}

// New returns a reflector from lw into store. Options that do not make sense
// (a transform for another type, watch timeout bounds out of order, a
// negative page size) are an error naming the option.
func New[T object.Object](lw ListerWatcher, store Store[T], opts ...Option) (*Reflector[T], error) {
	o := newOptions(opts)
	r := &Reflector[T]{lw: lw, store: store, o: o, log: o.log.WithValues("reflector", o.name), needRelist: true,
		events: o.eventClock}
	if r.events == nil {
		r.events = o.clock
	}
	r.eventBase = r.events.Now()
	if lw == nil || store == nil {
		return nil, fmt.Errorf("reflector %s: nil ListerWatcher or Store", o.name)
	}
	shard, err := newShardFilter(o.shard)
	if err != nil {
		return nil, fmt.Errorf("reflector %s: WithShardSelector: %w", o.name, err)
	}
	r.setShard(shard)
	if o.transform != nil {
		fn, ok := o.transform.(func(T) (T, error))
		if !ok {
			var zero T
			return nil, fmt.Errorf("reflector %s: WithTransform takes %T, want func(%T) (%T, error)", o.name, o.transform, zero, zero)
		}
		r.xform = fn
	}
	switch {
	case o.minWatch <= 0 || o.maxWatch < o.minWatch:
		return nil, fmt.Errorf("reflector %s: WithWatchTimeout(%s, %s): need 0 < min <= max", o.name, o.minWatch, o.maxWatch)
	case o.pageSize < 0:
		return nil, fmt.Errorf("reflector %s: WithPageSize(%d): must not be negative", o.name, o.pageSize)
	case o.deadWatch <= 0:
		return nil, fmt.Errorf("reflector %s: WithDeadWatchTimeout(%s): must be positive", o.name, o.deadWatch)
	}
	return r, nil
}

// Start lists and watches until ctx is done. It returns only then, after
// every goroutine it started has ended; the error is always nil (failures
// are retried, and reported to WithWatchErrorHandler), which lets a
// reflector be a manager.Runnable.
func (r *Reflector[T]) Start(ctx context.Context) error {
	r.run(ctx)
	return nil
}

func (r *Reflector[T]) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if r.o.resync > 0 {
		wg.Go(func() { r.resyncLoop(ctx) })
	}
	b := newBackoff(r.o.clock, r.o.backoffMin, r.o.backoffMax, r.o.backoffReset)
	for ctx.Err() == nil {
		err := r.listAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			continue // a relist is due; start it now
		}
		if r.o.onError != nil {
			r.o.onError(err)
		}
		delay := b.next()
		r.log.Info("list/watch failed; retrying", "error", err.Error(), "retryIn", delay)
		if !sleep(ctx, r.o.clock, delay) {
			return
		}
	}
}

// listAndWatch gets a complete list if one is due, then watches until the
// watch cannot go on. It returns nil when it should be called again at once
// (a relist is due, or a streamed list's watch ended normally), and an error
// when the caller should back off first.
func (r *Reflector[T]) listAndWatch(ctx context.Context) error {
	r.mu.Lock()
	relist := r.needRelist
	r.mu.Unlock()
	if relist {
		if r.canStream() {
			err := r.stream(ctx)
			if !errors.Is(err, errStreamUnsupported) {
				return r.classify(err)
			}
			r.mu.Lock()
			r.streamOff = true
			r.mu.Unlock()
			r.log.Info("falling back to list and watch", "reason", err.Error())
		}
		if err := r.relist(ctx); err != nil {
			return err
		}
	}
	for ctx.Err() == nil {
		if err := r.classify(r.watchOnce(ctx)); err != nil {
			return err
		}
		r.mu.Lock()
		relist = r.needRelist
		r.mu.Unlock()
		if relist {
			return nil
		}
	}
	return nil
}

func (r *Reflector[T]) resyncLoop(ctx context.Context) {
	t := r.o.clock.NewTicker(r.o.resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			if err := r.store.Resync(); err != nil {
				r.log.Error(err, "resync")
			}
		}
	}
}

// LastSyncResourceVersion returns the newest resourceVersion the reflector
// has handed to its store (from a list, an event or a bookmark).
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// LastEventTime returns when the reflector last received anything from the
// API server (list, event or bookmark), by its WithEventClock clock; zero
// before the first. It is noted as the store is handed each, before the
// store has it.
func (r *Reflector[T]) LastEventTime() time.Time {
	d := r.lastEvent.Load()
	if d == 0 {
		return time.Time{}
	}
	return r.eventBase.Add(time.Duration(d - 1))
}

// HasInitialSync reports whether the first complete list reached the store.
func (r *Reflector[T]) HasInitialSync() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.initialSync
}

// arrived notes that something from the API server is about to be handed
// to the store (see LastEventTime).
func (r *Reflector[T]) arrived() {
	r.lastEvent.Store(int64(r.events.Since(r.eventBase)) + 1)
}

// seen records the resourceVersion the store has been handed; "" is none.
func (r *Reflector[T]) seen(rv string) {
	if rv == "" {
		return
	}
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
}

// typed converts what the API returned into T, applying the transform once.
// ok is false, with no error, for an object outside the shard f selects
// (nil: no shard), which the store must not see.
func (r *Reflector[T]) typed(obj runtime.Object, f *shardFilter) (out T, ok bool, err error) {
	t, ok := obj.(T)
	if !ok {
		var zero T
		return zero, false, fmt.Errorf("reflector %s: got %s, want %T", r.o.name, describe(obj), zero)
	}
	if f != nil && !f.matches(t) {
		r.outsideShard(f)
		return t, false, nil
	}
	if r.xform == nil {
		return t, true, nil
	}
	out, err = r.xform(t)
	if err != nil {
		return out, false, fmt.Errorf("reflector %s: transform of %s: %w", r.o.name, describe(obj), err)
	}
	return out, true, nil
}

func describe(obj runtime.Object) string {
	gvk := obj.GetObjectKind().GroupVersionKind()
	name := ""
	if m, ok := obj.(metav1.Object); ok {
		name = object.Key(m)
	}
	return fmt.Sprintf("%T (kind %q) %q", obj, gvk.Kind, name)
}

func sleep(ctx context.Context, c clock.Clock, d time.Duration) bool {
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
