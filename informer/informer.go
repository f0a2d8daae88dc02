package informer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// Informer keeps a Cache of one kind of object in step with the API server
// and tells registered handlers about every change. One Informer per
// resource is meant to be shared by every controller that needs it.
type Informer[T object.Object] struct {
	name       string
	namespaces []string // the namespaces a factory informer lists in; nil for all
	log        logr.Logger
	cache      *Cache[T]
	sources    []*source[T] // one list and watch each; see informer_sources.go
	// sourceIndex finds the source of a namespace when there are several.
	sourceIndex map[string]int
	ropts       []reflector.Option
	refls       []*reflector.Reflector[T] // one per source, set by Start; mu

	// mu orders batch application against handler registration, so a late
	// handler's synthetic creates and the live events it gets next line up.
	mu        sync.Mutex
	listeners map[*listener[T]]time.Duration // handler -> resync period
	// wholeReaders counts the listeners without MetadataOnly; read
	// without mu by metadataList, at the start of a streamed list.
	wholeReaders   atomic.Int32
	listenerWG     sync.WaitGroup
	runCtx         context.Context
	started        bool
	stopped        bool
	initialApplied bool // the first list is in the cache
	transform      func(T) (T, error)
	dropManaged    bool               // the factory's default: DropManagedFields before transform
	kindTransform  func(T) (T, error) // the factory's WithKind transform, after dropManaged
	errHandler     func(error)
	shardSelector  string          // see SetShardSelector
	selector       object.Selector // a factory informer's label and field selectors
	notes          []change[T]     // reused per batch
	clock          clock.WithTicker
	sync           *syncState

	owner    *factoryRef                  // set on a factory's informer
	renew    func() (*Informer[T], error) // asks the factory again; see Current
	released atomic.Bool
}

// change is one cache change a batch produced, to be fanned out.
type change[T object.Object] struct {
	key string
	n   notification[T]
}

// New returns an informer for the objects lw lists and watches. Register
// handlers and indexes, then call Start. Its cache is compact where T has a
// compact form (see WithCompact). A nil lw, WithClock(nil) and
// WithCompact(true) for a T without a compact form are errors naming them.
func New[T object.Object](lw reflector.ListerWatcher, opts ...Option) (*Informer[T], error) {
	o := newOptions(opts)
	if o.name == "" {
		o.name = "informer"
	}
	if lw == nil {
		return nil, fmt.Errorf("informer %s: nil ListerWatcher", o.name)
	}
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("informer %s: %w", o.name, err)
	}
	inf, err := newInformer[T](nil, []reflector.ListerWatcher{lw}, o)
	if err != nil && o.compactGiven {
		return nil, fmt.Errorf("informer %s: WithCompact(true): %w", o.name, err)
	}
	return inf, nil
}

// newFed returns a Factory's informer, fed by lws, one per namespace of
// namespaces (nil, and one lw, for an informer of every namespace). Where
// T has no compact form it keeps decoded objects and logs why.
func newFed[T object.Object](namespaces []string, lws []reflector.ListerWatcher, opts []Option) *Informer[T] {
	inf, err := newInformer[T](namespaces, lws, newOptions(opts))
	if err != nil {
		inf.log.Error(fmt.Errorf("informer: %w", err), "keeping decoded objects: no compact form")
	}
	return inf
}

// newInformer returns the informer o describes, fed by lws. Its cache is
// compact if o asks for it and T has a compact form; otherwise, and with
// the error of the compact cache that could not be made, it is shared.
func newInformer[T object.Object](namespaces []string, lws []reflector.ListerWatcher, o *options) (*Informer[T], error) {
	if o.name == "" {
		o.name = "informer"
	}
	log := o.log.WithValues("informer", o.name)
	cache := NewCache[T]()
	cache.copies = o.copyReads
	var err error
	if o.compact {
		var cd *codec[T]
		if cd, err = newCodec[T](); err == nil {
			cache.compact = newCompactStore(cd)
			cache.onError = func(err error) { log.Error(err, "reading the cache") }
		}
	}
	inf := &Informer[T]{
		name:       o.name,
		namespaces: namespaces,
		log:        log,
		cache:      cache,
		listeners:  make(map[*listener[T]]time.Duration),
		clock:      o.clock,
		ropts:      o.reflectorOpts,
		sync:       newSyncState(),
	}
	inf.addSources(lws)
	inf.cache.rv = inf.lastSyncResourceVersion
	return inf, err
}

// Name returns the informer's name, used in logs and errors.
func (inf *Informer[T]) Name() string { return inf.name }

// Namespaces returns the namespaces a Factory's informer lists and
// watches in, sorted, or nil when it covers every namespace (or its kind
// is cluster-scoped, or it was made with New, which does not know). Its
// cache holds the objects of exactly these namespaces.
func (inf *Informer[T]) Namespaces() []string { return slices.Clone(inf.namespaces) }

func (inf *Informer[T]) cached() int { return inf.cache.Len() }

// scheduled tells readers that Start is about to be called, so that a read
// made between a factory's Start and the goroutine's first step waits for
// the list instead of reporting an informer that is not running.
func (inf *Informer[T]) scheduled() { inf.sync.setStarted() }

// Cache returns the informer's cache. Its objects are shared: do not modify
// them; unless it is compact (WithCompact), whose reads return objects the
// caller owns. Reading the cache directly does not wait for the first list: until
// HasSynced (or WaitForSync returns nil), a missing object may simply not
// have been listed yet. package client's reads wait.
func (inf *Informer[T]) Cache() *Cache[T] { return inf.cache }

// AddIndex adds a named index to the cache; see Cache.AddIndex.
func (inf *Informer[T]) AddIndex(name string, fn IndexFunc[T]) error {
	return inf.cache.AddIndex(name, fn)
}

// SetTransform sets a function applied to every object once, before it is
// cached or handed to handlers (DropManagedFields is a common choice). It
// must be set before Start. On a Factory's informer, which drops managed
// fields by default, fn sees objects already without them.
func (inf *Informer[T]) SetTransform(fn func(T) (T, error)) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.started {
		return fmt.Errorf("informer %s: SetTransform after Start", inf.name)
	}
	inf.transform = fn
	return nil
}

// transformFunc is the transform the reflector runs: the user's, preceded
// by DropManagedFields on a factory informer that drops them.
func (inf *Informer[T]) transformFunc() func(T) (T, error) {
	var chain []func(T) (T, error)
	if inf.dropManaged {
		chain = append(chain, DropManagedFields[T])
	}
	for _, fn := range []func(T) (T, error){inf.kindTransform, inf.transform} {
		if fn != nil {
			chain = append(chain, fn)
		}
	}
	switch len(chain) {
	case 0:
		return nil
	case 1:
		return chain[0]
	}
	return func(obj T) (T, error) {
		var err error
		for _, fn := range chain {
			if obj, err = fn(obj); err != nil {
				return obj, err
			}
		}
		return obj, nil
	}
}

// SetWatchErrorHandler sets a function called with every list or watch
// error, before the informer retries. It must be set before Start.
func (inf *Informer[T]) SetWatchErrorHandler(fn func(error)) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.started {
		return fmt.Errorf("informer %s: SetWatchErrorHandler after Start", inf.name)
	}
	inf.errHandler = fn
	return nil
}

// Start lists and watches until ctx is done, then stops every goroutine it
// started (handlers included) before returning. Start may be called once.
func (inf *Informer[T]) Start(ctx context.Context) error {
	inf.mu.Lock()
	if inf.started {
		inf.mu.Unlock()
		return fmt.Errorf("informer %s: Start called twice", inf.name)
	}
	inf.started, inf.runCtx = true, ctx
	inf.sync.setStarted()
	refls, err := inf.reflectors()
	if err != nil {
		inf.mu.Unlock()
		err = fmt.Errorf("informer %s: %w", inf.name, err)
		inf.sync.setError(err)
		inf.sync.stopped()
		inf.endProgress()
		return err
	}
	inf.refls = refls
	for l, period := range inf.listeners {
		inf.startListener(l, period)
	}
	inf.mu.Unlock()

	inf.run(ctx, refls)
	inf.endProgress() // WhenProcessed's waiters must not wait for a stopped cache
	inf.mu.Lock()
	inf.stopped = true
	inf.sync.stopped()
	for l := range inf.listeners {
		l.stop()
	}
	if inf.released.Load() {
		inf.dropState()
	}
	inf.mu.Unlock()
	inf.listenerWG.Wait() // removed handlers included
	return nil
}

// HasSynced reports whether the cache holds the first complete list.
func (inf *Informer[T]) HasSynced() bool { return inf.sync.synced.Load() }

// LastSyncResourceVersion returns the resourceVersion the cache reflects:
// every change (and watch bookmark) up to it has been applied to the cache
// and queued to the handlers, and none after it. It is "" before the first
// list.
//
// A Factory's informer of several namespaces (WithNamespaces) watches each
// namespace on its own; its resourceVersion is the smallest of theirs, once
// each has listed: every change up to it, in every namespace, is applied,
// and so may be later ones in namespaces whose watch is ahead. It relies on
// kube-apiserver's resourceVersions, etcd revisions of one store, which
// compare as numbers across watches; where they are not numbers it is "".
func (inf *Informer[T]) LastSyncResourceVersion() string {
	return inf.cache.LastSyncResourceVersion()
}
