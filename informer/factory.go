package informer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// Factory hands out one shared Informer per kind of object, namespace and
// selectors, and runs them together. Typed objects (*corev1.Pod) are found
// through the cluster's scheme, custom resources through the dynamic client
// (Unstructured) and metadata-only informers through the metadata client.
// Its informers drop managedFields unless told otherwise
// (WithKeepManagedFields).
//
// A factory made WithNamespace or WithNamespaces caches namespaced kinds in
// those namespaces only: asking for namespace "" means all of them (one
// Informer, fed by a watch per namespace), asking for one of them means
// that one, asking for another is an error, and AllNamespaces asks for a
// cluster-wide cache explicitly. WithKind sets a kind's own namespaces,
// selector and transform, or leaves it uncached.
//
// An informer lives while it has handlers: when the last handler registered
// with it is removed (a controller's watch removed, or its controller
// stopped), the factory stops it, forgets it and empties its cache; the
// next For makes a fresh one. See "Releasing informers" in the package
// documentation.
type Factory struct {
	c *cluster.Cluster
	o *options

	mu        sync.Mutex
	informers map[factoryKey]runner
	runCtx    context.Context // set by Start
	started   chan struct{}   // closed by Start
	wg        sync.WaitGroup

	inherited map[factoryKey]any // settings of released informers; see own
	keep      bool               // KeepInformers was called
}

// AllNamespaces, passed as the namespace to For, ForUnstructured or
// ForMetadata, asks for a cache of a namespaced kind across every
// namespace, also from a factory restricted WithNamespace. It is not a
// valid namespace name, so it cannot collide with one.
const AllNamespaces = "*"

// factoryKey identifies a shared informer.
type factoryKey struct {
	gvk       schema.GroupVersionKind
	form      string // "typed", "unstructured" or "metadata"
	namespace string // as asked; resolved by shared to the namespaces listed, comma-separated
	labels    string
	fields    string
}

type runner interface {
	Syncer
	Start(ctx context.Context) error
	SyncError() error
	cached() int
	Progress() Progress
	scheduled()
	releaser
}

// NewFactory returns a factory of informers of c's kinds. It takes every
// Option, and applies WithLogger, WithClock, WithReflectorOptions and
// WithCompact to each of its informers; WithName is an error, as the
// factory names its informers after their resources. The other
// FactoryOptions configure the factory itself.
func NewFactory(c *cluster.Cluster, opts ...FactoryOption) (*Factory, error) {
	if c == nil {
		return nil, fmt.Errorf("informer factory: nil cluster")
	}
	o := newFactoryOptions(opts)
	switch {
	case o.named:
		return nil, fmt.Errorf("informer factory: WithName(%q): a factory names its informers after their resources", o.name)
	case o.syncTimeout <= 0:
		return nil, fmt.Errorf("informer factory: WithCacheSyncTimeout(%s): must be positive", o.syncTimeout)
	}
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	if err := o.checkCaching(); err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	if !c.FastPath(cluster.FastCompact) && !o.compactGiven {
		// Compact caches are a fast path (cluster.FastCompact). Their
		// reads return the caller's own objects; copies keep that promise.
		o.compact, o.copyReads = false, true
	}
	return &Factory{c: c, o: o, informers: make(map[factoryKey]runner), started: make(chan struct{})}, nil
}

// Cluster returns the cluster the factory's informers list and watch.
func (f *Factory) Cluster() *cluster.Cluster { return f.c }

// CacheSyncTimeout returns how long a read waits for an informer's first list at
// most (see WithCacheSyncTimeout).
func (f *Factory) CacheSyncTimeout() time.Duration { return f.o.syncTimeout }

// For returns the shared informer of typed objects T in namespace: "" for
// the namespaces the factory caches the kind in (every namespace, unless
// restricted: see Factory) and for cluster-scoped kinds.
func For[T object.Object](f *Factory, namespace string, sel object.Selector) (*Informer[T], error) {
	gvk, err := cluster.KindOf[T](f.c)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	sel = f.selectors(gvk, sel)
	newObject := protoNew[T]()
	return shared[T](f, factoryKey{gvk: gvk, form: "typed", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error) {
			return f.typedLW(gvk, gvr, namespace, newObject)
		})
}

// ForUnstructured returns the shared informer of any kind, custom resources
// included, as *unstructured.Unstructured.
func ForUnstructured(f *Factory, gvk schema.GroupVersionKind, namespace string, sel object.Selector) (*Informer[*unstructured.Unstructured], error) {
	sel = f.selectors(gvk, sel)
	return shared[*unstructured.Unstructured](f, factoryKey{gvk: gvk, form: "unstructured", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error) {
			return reflector.FromDynamic(f.c.Dynamic(), gvr, namespace, selectorOpts(sel)...), nil
		})
}

// ForMetadata returns the shared metadata-only informer of a kind: a small
// cache for large objects whose contents the controller does not read.
func ForMetadata(f *Factory, gvk schema.GroupVersionKind, namespace string, sel object.Selector) (*Informer[*metav1.PartialObjectMetadata], error) {
	sel = f.selectors(gvk, sel)
	return shared[*metav1.PartialObjectMetadata](f, factoryKey{gvk: gvk, form: "metadata", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error) {
			return reflector.FromMetadata(f.c.Metadata(), gvr, namespace, selectorOpts(sel)...), nil
		})
}

// shared returns the informer for key, creating it (and running it, if the
// factory has started) on first use. key.namespace is the one asked for; it
// is resolved against the kind's scope and namespaces first (NamespacesFor).
func shared[T object.Object](f *Factory, key factoryKey, newLW func(gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error)) (*Informer[T], error) {
	asked := key
	mapping, err := f.c.RESTMapping(key.gvk)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	namespaces, err := f.namespacesFor(mapping, key.namespace)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	key.namespace = strings.Join(namespaces, ",")
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.informers[key]; ok {
		inf, ok := r.(*Informer[T])
		if !ok {
			return nil, fmt.Errorf("informer factory: %s is shared as %T, not as %T informer", key.gvk, r, (*Informer[T])(nil))
		}
		return inf, nil
	}
	if err := (object.Selector{Labels: key.labels, Fields: key.fields}).Validate(); err != nil {
		return nil, fmt.Errorf("informer factory: %s: %w", key.gvk, err)
	}
	lws, err := listerWatchers(mapping, namespaces, key, newLW)
	if err != nil {
		return nil, err
	}
	name := mapping.Resource.GroupResource().String()
	if key.namespace != "" {
		name += "/" + key.namespace
	}
	inf := newFed[T](namespaces, lws,
		[]Option{WithName(name), WithLogger(f.o.log), WithClock(f.o.clock), WithReflectorOptions(f.o.reflectorOpts...),
			WithCompact(f.o.compact && !f.o.kinds[key.gvk.GroupKind()].Shared),
			withCopyReads(f.o.copyReads && !f.o.kinds[key.gvk.GroupKind()].Shared)})
	inf.dropManaged = !f.o.keepManagedFields
	inf.kindTransform = kindTransform[T](key.gvk.GroupKind(), f.o.kinds[key.gvk.GroupKind()].Transform)
	inf.shardSelector = f.o.kinds[key.gvk.GroupKind()].ShardSelector
	inf.selector = object.Selector{Labels: key.labels, Fields: key.fields}
	own(f, key, inf, func() (*Informer[T], error) { return shared[T](f, asked, newLW) })
	f.informers[key] = inf
	if f.runCtx != nil {
		f.run(inf)
	}
	return inf, nil
}

// Start runs every informer handed out so far, and every later one as it is
// handed out, until ctx is done; then it waits for them all to stop and
// returns. Run it in a goroutine of its own; Started is closed as soon as
// it has begun, so reads through package client can tell a factory that
// runs from one that never will. A factory starts once.
func (f *Factory) Start(ctx context.Context) error {
	f.mu.Lock()
	if f.runCtx != nil {
		f.mu.Unlock()
		return errors.New("informer factory: started twice")
	}
	f.runCtx = ctx
	for _, inf := range f.informers {
		f.run(inf)
	}
	close(f.started)
	f.mu.Unlock()
	<-ctx.Done()
	f.wg.Wait()
	return nil
}

// run starts inf on the factory's context. f.mu is held, so Start's wait
// for the informers cannot miss one.
func (f *Factory) run(inf runner) {
	inf.scheduled()
	ctx, stop := context.WithCancel(f.runCtx) // stopped early by release
	inf.ref().stop = stop
	f.wg.Go(func() {
		defer stop()
		if err := inf.Start(ctx); err != nil {
			f.o.log.Error(err, "informer stopped", "informer", inf.Name())
		}
	})
}

// Started is closed once Start has begun: from then on the factory's
// informers run and fill their caches.
func (f *Factory) Started() <-chan struct{} { return f.started }

// selectors returns sel, or the selector of gvk's kind (WithKind) if sel is
// empty.
func (f *Factory) selectors(gvk schema.GroupVersionKind, sel object.Selector) object.Selector {
	if !sel.IsZero() {
		return sel
	}
	return f.o.kinds[gvk.GroupKind()].Selector
}

// Stats describes one of a factory's informers.
type Stats struct {
	Name    string // e.g. "configmaps", "deployments.apps/my-namespace" or "secrets/a,b"
	Objects int    // objects in its cache
	Synced  bool   // whether its initial list has been cached
	// Err is why the informer has not synced yet, if its last attempt to
	// list failed (a 403 from RBAC, say); nil once synced.
	Err error
	// Progress is how far its cache has got (Informer.Progress).
	Progress Progress
}

// Stats reports on every informer handed out so far and not released, for
// metrics and readiness checks.
func (f *Factory) Stats() []Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Stats, 0, len(f.informers))
	for _, inf := range f.informers {
		out = append(out, Stats{Name: inf.Name(), Objects: inf.cached(), Synced: inf.HasSynced(), Err: inf.SyncError(), Progress: inf.Progress()})
	}
	return out
}

// WaitForCacheSync waits until every informer handed out so far has synced;
// its error names those that have not when ctx ends.
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	all := make([]Syncer, 0, len(f.informers))
	for _, inf := range f.informers {
		all = append(all, inf)
	}
	f.mu.Unlock()
	return WaitForCacheSync(ctx, all...)
}

func selectorOpts(sel object.Selector) []reflector.ListOption {
	return []reflector.ListOption{reflector.Matching(sel)}
}

// selectingLW applies a factory key's selectors to every request.
type selectingLW struct {
	lw             reflector.ListerWatcher
	labels, fields string
}

func (s *selectingLW) List(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	o.LabelSelector, o.FieldSelector = s.labels, s.fields
	return s.lw.List(ctx, o)
}

func (s *selectingLW) Watch(ctx context.Context, o metav1.ListOptions) (watchInterface, error) {
	o.LabelSelector, o.FieldSelector = s.labels, s.fields
	return s.lw.Watch(ctx, o)
}

// SupportsWatchList passes the wrapped ListerWatcher's answer through.
func (s *selectingLW) SupportsWatchList() bool {
	sl, ok := s.lw.(reflector.StreamingLister)
	return ok && sl.SupportsWatchList()
}
