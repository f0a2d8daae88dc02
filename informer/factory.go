package informer

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/steadyctl/steady/reflector"
)

// Factory hands out one shared Informer per kind of object, namespace and
// selectors, and runs them together. Typed objects (*corev1.Pod) are found
// through a client-go scheme, custom resources through the dynamic client
// (Unstructured) and metadata-only informers through the metadata client.
// Its informers drop managedFields unless told otherwise
// (SetKeepManagedFields).
type Factory struct {
	cfg    *rest.Config
	scheme *runtime.Scheme
	codecs runtime.NegotiatedSerializer
	mapper meta.ResettableRESTMapper
	dyn    dynamic.Interface
	meta   metadata.Interface
	log    logr.Logger

	mu        sync.Mutex
	informers map[factoryKey]runner
	defaults  map[schema.GroupKind]Selectors
	keepMF    bool            // SetKeepManagedFields
	runCtx    context.Context // set by Start
	wg        sync.WaitGroup
}

// factoryKey identifies a shared informer.
type factoryKey struct {
	gvk       schema.GroupVersionKind
	form      string // "typed", "unstructured" or "metadata"
	namespace string
	labels    string
	fields    string
}

type runner interface {
	Run(ctx context.Context) error
	HasSynced() bool
	Name() string
	cached() int
}

// Selectors narrow what a factory informer lists and watches.
type Selectors struct {
	Labels string // a label selector, e.g. "app=web"
	Fields string // a field selector, e.g. "spec.nodeName=node-1"
}

// Validate reports a selector the API server would refuse.
func (s Selectors) Validate() error {
	if _, err := labels.Parse(s.Labels); err != nil {
		return fmt.Errorf("label selector %q: %w", s.Labels, err)
	}
	if _, err := fields.ParseSelector(s.Fields); err != nil {
		return fmt.Errorf("field selector %q: %w", s.Fields, err)
	}
	return nil
}

// NewFactory returns a factory for the cluster at cfg. scheme resolves typed
// objects to their kinds (client-go's kubernetes/scheme.Scheme covers the
// built-in ones).
func NewFactory(cfg *rest.Config, scheme *runtime.Scheme, log logr.Logger) (*Factory, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("informer factory: discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("informer factory: dynamic client: %w", err)
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("informer factory: metadata client: %w", err)
	}
	return &Factory{
		cfg: cfg, scheme: scheme, codecs: serializerFor(scheme),
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
		dyn:    dyn, meta: md, log: log,
		informers: make(map[factoryKey]runner),
	}, nil
}

// For returns the shared informer of typed objects T in namespace ("" for
// all namespaces or for cluster-scoped kinds).
func For[T Object](f *Factory, namespace string, sel Selectors) (*Informer[T], error) {
	gvk, err := KindOf[T](f.scheme)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	sel = f.selectors(gvk, sel)
	return shared[T](f, factoryKey{gvk: gvk, form: "typed", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource) (reflector.ListerWatcher, error) {
			return f.typedLW(gvk, gvr, namespace)
		})
}

// ForUnstructured returns the shared informer of any kind, custom resources
// included, as *unstructured.Unstructured.
func ForUnstructured(f *Factory, gvk schema.GroupVersionKind, namespace string, sel Selectors) (*Informer[*unstructured.Unstructured], error) {
	sel = f.selectors(gvk, sel)
	return shared[*unstructured.Unstructured](f, factoryKey{gvk: gvk, form: "unstructured", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource) (reflector.ListerWatcher, error) {
			return reflector.FromDynamic(f.dyn, gvr, namespace, selectorOpts(sel)...), nil
		})
}

// ForMetadata returns the shared metadata-only informer of a kind: a small
// cache for large objects whose contents the controller does not read.
func ForMetadata(f *Factory, gvk schema.GroupVersionKind, namespace string, sel Selectors) (*Informer[*metav1.PartialObjectMetadata], error) {
	sel = f.selectors(gvk, sel)
	return shared[*metav1.PartialObjectMetadata](f, factoryKey{gvk: gvk, form: "metadata", namespace: namespace, labels: sel.Labels, fields: sel.Fields},
		func(gvr schema.GroupVersionResource) (reflector.ListerWatcher, error) {
			return reflector.FromMetadata(f.meta, gvr, namespace, selectorOpts(sel)...), nil
		})
}

// shared returns the informer for key, creating it (and running it, if the
// factory has started) on first use.
func shared[T Object](f *Factory, key factoryKey, newLW func(schema.GroupVersionResource) (reflector.ListerWatcher, error)) (*Informer[T], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.informers[key]; ok {
		inf, ok := r.(*Informer[T])
		if !ok {
			return nil, fmt.Errorf("informer factory: %s is shared as %T, not as %T informer", key.gvk, r, (*Informer[T])(nil))
		}
		return inf, nil
	}
	if err := (Selectors{Labels: key.labels, Fields: key.fields}).Validate(); err != nil {
		return nil, fmt.Errorf("informer factory: %s: %w", key.gvk, err)
	}
	mapping, err := f.RESTMapping(key.gvk)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	lw, err := newLW(mapping.Resource)
	if err != nil {
		return nil, err
	}
	name := mapping.Resource.GroupResource().String()
	if key.namespace != "" {
		name += "/" + key.namespace
	}
	inf := New[T](&selectingLW{lw: lw, labels: key.labels, fields: key.fields}, WithName(name), WithLogger(f.log))
	inf.dropManaged = !f.keepMF
	f.informers[key] = inf
	if f.runCtx != nil {
		f.run(inf)
	}
	return inf, nil
}

// Start runs every informer handed out so far, and every later one as it is
// handed out, until ctx is done.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runCtx != nil {
		return
	}
	f.runCtx = ctx
	for _, inf := range f.informers {
		f.run(inf)
	}
}

func (f *Factory) run(inf runner) {
	f.wg.Go(func() {
		if err := inf.Run(f.runCtx); err != nil {
			f.log.Error(err, "informer stopped", "informer", inf.Name())
		}
	})
}

// Wait blocks until every running informer has stopped (after the Start
// context is done).
func (f *Factory) Wait() { f.wg.Wait() }

// SetDefaultSelectors makes informers of kind gk that are asked for without
// selectors use sel instead, so that an operator caches only the objects of
// a kind it manages (controller-runtime's cache ByObject). Informers already
// handed out are not changed: call it before asking for any.
func (f *Factory) SetDefaultSelectors(gk schema.GroupKind, sel Selectors) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.defaults == nil {
		f.defaults = map[schema.GroupKind]Selectors{}
	}
	f.defaults[gk] = sel
}

// SetKeepManagedFields(true) makes the informers handed out afterwards keep
// metadata.managedFields. By default a factory's informers drop them before
// caching (see DropManagedFields): they are often half of a small object's
// size, controllers read them rarely, and an Update of a cached object
// without them leaves the server's copy as it is (the API server keeps
// managedFields that a write omits). Keep them if your controller reads
// them from the cache.
func (f *Factory) SetKeepManagedFields(keep bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keepMF = keep
}

// selectors returns sel, or the default selectors of gvk's kind if sel is
// empty.
func (f *Factory) selectors(gvk schema.GroupVersionKind, sel Selectors) Selectors {
	if sel != (Selectors{}) {
		return sel
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.defaults[gvk.GroupKind()]
}

// Stats describes one of a factory's informers.
type Stats struct {
	Name    string // e.g. "configmaps" or "deployments.apps/my-namespace"
	Objects int    // objects in its cache
	Synced  bool   // whether its initial list has been cached
}

// Stats reports on every informer handed out so far, for metrics and
// readiness checks.
func (f *Factory) Stats() []Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Stats, 0, len(f.informers))
	for _, inf := range f.informers {
		out = append(out, Stats{Name: inf.Name(), Objects: inf.cached(), Synced: inf.HasSynced()})
	}
	return out
}

// Scheme returns the scheme the factory resolves typed objects with.
func (f *Factory) Scheme() *runtime.Scheme { return f.scheme }

// RESTMapping returns the resource and scope of gvk, found through the API
// server's discovery (cached).
func (f *Factory) RESTMapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := f.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// The discovery cache may predate the kind: a CRD installed after
		// the factory first looked. Read discovery again, once.
		f.mapper.Reset()
		m, err = f.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("no resource for %s: %w", gvk, err)
	}
	return m, nil
}

// KindOf returns the kind of the typed object T (a pointer type such as
// *corev1.Pod) as registered in scheme.
func KindOf[T runtime.Object](scheme *runtime.Scheme) (schema.GroupVersionKind, error) {
	var zero T
	typ := reflect.TypeOf(zero)
	if typ == nil || typ.Kind() != reflect.Pointer {
		return schema.GroupVersionKind{}, fmt.Errorf("want a pointer type such as *corev1.Pod, not %v", typ)
	}
	gvks, _, err := scheme.ObjectKinds(reflect.New(typ.Elem()).Interface().(T))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("%T is not in the scheme: %w", zero, err)
	}
	return gvks[0], nil
}

// WaitForCacheSync waits until every informer handed out so far has synced;
// its error names those that have not when ctx ends.
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	all := make([]interface {
		Syncer
		Name() string
	}, 0, len(f.informers))
	for _, inf := range f.informers {
		all = append(all, inf)
	}
	f.mu.Unlock()
	return WaitForCacheSync(ctx, all...)
}

func selectorOpts(sel Selectors) []reflector.ListOption {
	return []reflector.ListOption{reflector.LabelSelector(sel.Labels), reflector.FieldSelector(sel.Fields)}
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
