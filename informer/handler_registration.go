package informer

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// HandlerOption configures one handler registration.
type HandlerOption func(*handlerOptions)

type handlerOptions struct {
	resync       time.Duration
	metadataOnly bool
}

// ResyncPeriod makes the informer re-deliver every cached object to
// this handler as an update (old == new) every d, so it can re-check state
// that lives outside the API server. Zero (the default) never resyncs.
func ResyncPeriod(d time.Duration) HandlerOption {
	return func(o *handlerOptions) { o.resync = d }
}

// MetadataOnly says the handler reads nothing of the objects of the
// creates of an initial list (IsInInitialList) but their ObjectMeta: it
// enqueues them by name, or by owner, say. A compact cache may then file
// the objects of its first list without decoding them whole, and hand this
// handler objects with only their ObjectMeta set in those events (every
// other event, and a create after the initial list, carries the whole
// object). As long as any handler without it is registered, or an index
// other than the namespace one, every object is decoded whole as before.
// controller.Informer registers a handler with it when
// handler.ReadsOnlyMetadata says its handler and predicates qualify.
func MetadataOnly() HandlerOption {
	return func(o *handlerOptions) { o.metadataOnly = true }
}

// Registration is a handler's membership in an informer. It is a Syncer,
// named after its informer.
type Registration struct {
	name   string
	synced func() bool
	remove func()
}

// Name returns the name of the informer the handler is registered with.
func (r *Registration) Name() string { return r.name }

// HasSynced reports whether this handler has been handed every object of
// the informer's initial list (or, for a handler added later, every object
// that was cached when it was added).
func (r *Registration) HasSynced() bool { return r.synced() }

// Remove stops deliveries to the handler; notifications not yet delivered
// are dropped. A call already in progress finishes. Remove is idempotent.
// Removing the last handler of a factory's informer releases the informer
// (see Factory).
func (r *Registration) Remove() { r.remove() }

// AddHandler registers h. Before or after Start, h first gets a create for
// every object already cached (IsInInitialList set), then every later
// change.
func (inf *Informer[T]) AddHandler(h Handler[T], opts ...HandlerOption) (*Registration, error) {
	if h == nil {
		return nil, fmt.Errorf("informer %s: AddHandler with a nil handler", inf.name)
	}
	var ho handlerOptions
	for _, opt := range opts {
		opt(&ho)
	}
	if ho.resync < 0 {
		return nil, fmt.Errorf("informer %s: negative resync period %s", inf.name, ho.resync)
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	switch {
	case inf.released.Load():
		return nil, fmt.Errorf("informer %s: AddHandler: %w", inf.name, ErrReleased)
	case inf.stopped:
		return nil, fmt.Errorf("informer %s: AddHandler after Start returned", inf.name)
	}
	l := newListener(h, inf.log)
	l.metadataOnly = ho.metadataOnly
	if !l.metadataOnly {
		inf.wholeReaders.Add(1)
	}
	if c := inf.cache.compact; c != nil {
		l.decode = c.codec.decode
	}
	inf.enqueueSnapshot(l, notification[T]{kind: kindCreate, initial: true})
	if inf.initialApplied {
		l.markSynced() // otherwise the initial batch will mark it
	}
	inf.listeners[l] = ho.resync
	if inf.started {
		inf.startListener(l, ho.resync)
	}
	return &Registration{
		name:   inf.name,
		synced: l.synced.Load,
		remove: func() {
			inf.mu.Lock()
			_, present := inf.listeners[l]
			delete(inf.listeners, l)
			last := present && len(inf.listeners) == 0
			if present && !l.metadataOnly {
				inf.wholeReaders.Add(-1)
			}
			inf.mu.Unlock()
			l.stop()
			if last {
				inf.lastHandlerRemoved()
			}
		},
	}, nil
}

// startListener runs l's delivery goroutine and, if it wants resyncs, its
// resync ticker. inf.mu must be held.
func (inf *Informer[T]) startListener(l *listener[T], resync time.Duration) {
	inf.listenerWG.Add(1)
	go func() {
		defer inf.listenerWG.Done()
		l.run()
	}()
	if resync <= 0 {
		return
	}
	inf.listenerWG.Add(1)
	go func() {
		defer inf.listenerWG.Done()
		inf.resyncLoop(inf.runCtx, l, resync)
	}()
}

func (inf *Informer[T]) resyncLoop(ctx context.Context, l *listener[T], period time.Duration) {
	t := inf.clock.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.done:
			return
		case <-t.C():
			inf.mu.Lock()
			inf.enqueueSnapshot(l, notification[T]{kind: kindUpdate})
			inf.mu.Unlock()
		}
	}
}

// Syncer is anything that can say whether its cache is filled, named for
// error messages: an Informer, a handler's Registration, a controller's
// source.
type Syncer interface {
	// Name names the syncer in WaitForCacheSync's error.
	Name() string
	// HasSynced reports whether the cache holds its first complete list
	// (for a Registration: whether the handler has been handed it).
	HasSynced() bool
}

// ErrNotSynced is wrapped by WaitForCacheSync's error.
var ErrNotSynced = errors.New("cache did not sync")

// WaitForCacheSync waits until every syncer has synced or ctx is done. On
// timeout its error names the syncers that had not synced, rather than
// returning a bare false.
func WaitForCacheSync(ctx context.Context, syncers ...Syncer) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var pending []string
		for _, s := range syncers {
			if !s.HasSynced() {
				pending = append(pending, s.Name())
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("informer: %w: %v: %w", ErrNotSynced, pending, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// enqueueSnapshot queues to l a notification like n for every cached
// object (obj, and for updates old, set to it). inf.mu must be held so no
// batch is half applied. A compact cache's objects are left encoded, for
// the handler to decode as it gets them: a late handler's snapshot of the
// whole cache holds no decoded objects.
func (inf *Informer[T]) enqueueSnapshot(l *listener[T], n notification[T]) {
	c := inf.cache
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.compact != nil {
		out := make([]encodedChange[T], 0, len(c.compact.items))
		for key, data := range c.compact.items {
			out = append(out, encodedChange[T]{change: change[T]{key: key, n: n}, data: data})
		}
		l.enqueueEncoded(out)
		return
	}
	out := make([]change[T], 0, len(c.items))
	for key, obj := range c.items {
		n.obj = obj
		if n.kind == kindUpdate {
			n.old = obj
		}
		out = append(out, change[T]{key: key, n: n})
	}
	l.enqueueChunk(out)
}
