package deltafifo

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/object"
)

// FIFO is a queue of keys, each with the ordered deltas that happened to its
// object since the consumer last popped it. It is safe for one producer (a
// reflector) and one consumer (an informer) at a time.
type FIFO[T object.Object] struct {
	known    KnownObjects[T]
	log      logr.Logger
	progress func(resourceVersion string) // WithProgress; nil if not set

	mu      sync.Mutex
	cond    sync.Cond
	entries map[string]*entry[T]
	order   keyQueue // keys in the order they were first queued
	closed  bool

	// batch, when set, is the number of keys at the head of order that the
	// next Pop hands over together: everything queued at the last Replace.
	batch        bool
	batchLen     int
	batchInitial bool
	batchMore    bool // the batch is a part of a list (AppendList)

	// listing is set between a list's first AppendList and the Replace
	// that ends it; listKeys holds the keys of its parts when deletions
	// will have to be inferred (see startList).
	listing  bool
	listKeys map[string]struct{}

	// direct is a Replace batch built straight into Items, without per-key
	// entries: the fast path when nothing was queued or known (the initial
	// list). Keys in it are older than anything in order.
	direct   []Item[T]
	directRV string

	populated bool // a Replace has happened
	synced    bool // the first Replace's batch has been processed

	latestRV   string // newest resourceVersion seen (event, list or bookmark)
	inFlight   bool
	inFlightRV string // what the store reflected before the popped batch

	watchedCtx context.Context // the context Pop last registered a wake-up for
	stopWatch  func() bool

	popped        []Item[T]   // reused by Pop
	poppedEntries []*entry[T] // the entries behind popped, recycled after processing
	free          []*entry[T]
}

// maxFree bounds how many spent entries are kept for reuse.
const maxFree = 1024

// entry is a queued key's deltas. rvBefore is the newest resourceVersion
// seen before the key was queued: until the key is processed, the
// consumer's store reflects at most that.
type entry[T object.Object] struct {
	deltas   []Delta[T]
	inline   [1]Delta[T] // most keys carry one delta; avoids a second allocation
	rvBefore string
}

// Option configures a FIFO.
type Option func(*options)

type options struct {
	log      logr.Logger
	progress func(resourceVersion string)
}

// WithLogger sets the logger (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithProgress sets a function the FIFO calls whenever
// LastStoreSyncResourceVersion may have advanced, with the value it would
// return then, so a consumer can wait for its store to reach a
// resourceVersion without polling (default: none). It is called after each
// popped batch has been processed (Pop's process returned without
// ErrRequeue; relists included), and after a Bookmark that arrives while
// nothing is queued or being processed; an event always queues its key, so
// it is reported once that key has been processed.
//
// fn runs without the FIFO's lock, on the goroutine of Pop or of Bookmark,
// so calls may overlap, and one may carry an older resourceVersion than the
// call before it (a Pop finishing while a Bookmark arrives): the FIFO does
// not compare resourceVersions, so the consumer keeps the newest. fn must
// not block; it may call the FIFO's methods.
func WithProgress(fn func(resourceVersion string)) Option {
	return func(o *options) { o.progress = fn }
}

// New returns an empty FIFO. known is the consumer's store, used by Replace
// and Resync; it may be nil, and then only queued objects count as known.
func New[T object.Object](known KnownObjects[T], opts ...Option) *FIFO[T] {
	o := options{log: logr.Discard()}
	for _, opt := range opts {
		opt(&o)
	}
	f := &FIFO[T]{known: known, log: o.log, progress: o.progress, entries: make(map[string]*entry[T])}
	f.cond.L = &f.mu
	return f
}

// Add queues an Added delta.
func (f *FIFO[T]) Add(obj T) error { return f.event(Added, obj) }

// Update queues an Updated delta.
func (f *FIFO[T]) Update(obj T) error { return f.event(Updated, obj) }

// Delete queues a Deleted delta.
func (f *FIFO[T]) Delete(obj T) error { return f.event(Deleted, obj) }

func (f *FIFO[T]) event(t DeltaType, obj T) error {
	key, err := keyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: %s %s: %w", t, describe(obj), err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue(key, Delta[T]{Type: t, Object: obj})
	if rv := obj.GetResourceVersion(); rv != "" {
		f.latestRV = rv
	}
	return nil
}

// Bookmark records that the watch reached resourceVersion without a change
// to any object, so LastStoreSyncResourceVersion can move forward.
func (f *FIFO[T]) Bookmark(resourceVersion string) {
	f.mu.Lock()
	f.latestRV = resourceVersion
	// With something queued or in flight, the store is behind the bookmark
	// until Pop has processed it, and Pop reports progress then.
	idle := f.order.len() == 0 && f.direct == nil && !f.batch && !f.inFlight
	f.mu.Unlock()
	if idle && f.progress != nil {
		f.progress(resourceVersion)
	}
}

// queue appends d to key's deltas, queueing the key if needed. f.mu is held.
func (f *FIFO[T]) queue(key string, d Delta[T]) {
	e, ok := f.entries[key]
	if !ok {
		if n := len(f.free); n > 0 {
			e, f.free = f.free[n-1], f.free[:n-1]
		} else {
			e = new(entry[T])
		}
		e.rvBefore = f.latestRV
		e.inline[0] = d
		e.deltas = e.inline[:1:1]
		f.entries[key] = e
		f.order.push(key)
		f.cond.Signal()
		return
	}
	if n := len(e.deltas); n > 0 && d.Type == Deleted && e.deltas[n-1].Type == Deleted {
		// Two deletions in a row say the same thing; keep the one that knows
		// the final state.
		if !d.FinalStateUnknown || e.deltas[n-1].FinalStateUnknown {
			e.deltas[n-1] = d
		}
		return
	}
	e.deltas = append(e.deltas, d)
}

// Len returns the number of queued keys.
func (f *FIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.order.len() + len(f.direct)
}

// HasSynced reports whether the first Replace's items have all been popped
// and processed.
func (f *FIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.synced
}

// LastStoreSyncResourceVersion returns the resourceVersion the consumer's
// store reflects: every delta and bookmark up to it has been processed.
func (f *FIFO[T]) LastStoreSyncResourceVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.storeRV()
}

// storeRV is LastStoreSyncResourceVersion. f.mu is held.
func (f *FIFO[T]) storeRV() string {
	switch {
	case f.inFlight:
		return f.inFlightRV
	case f.direct != nil:
		return f.directRV
	case f.order.len() > 0:
		return f.entries[f.order.peek()].rvBefore
	default:
		return f.latestRV
	}
}

// Close wakes every Pop, which from then on returns ErrClosed.
func (f *FIFO[T]) Close() {
	f.mu.Lock()
	f.closed = true
	f.cond.Broadcast()
	if f.stopWatch != nil {
		f.stopWatch()
	}
	f.mu.Unlock()
}
