// Command steady is the steady child of the end-to-end benchmark
// (bench/cmd/e2e): a controller of ConfigMaps or of the custom resource
// Widget, written with steady's informer factory, controller and client,
// running the shared reconcile logic of package internal/e2e. The parent
// builds and runs it; see that command.
package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

func main() { e2e.Main("steady", start) }

// reconciler reads an object from the informer's cache and, when the shared
// logic says so, writes the observed annotation to the API server with
// write.
type reconciler[T object.Object] struct {
	cache *informer.Cache[T] // compact unless -steady shared
	write func(context.Context, T) error
	logic *e2e.Logic
}

func (r *reconciler[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj, ok := r.cache.Get(req.Namespace, req.Name)
	var observed metav1.Object // an untyped nil when the object is gone
	if ok {
		observed = obj
	}
	want, write := r.logic.Observe(observed)
	if !write {
		return reconcile.Result{}, nil
	}
	if !r.cache.Compact() {
		obj = obj.DeepCopyObject().(T) // the cache's objects are shared and read-only
	} // a compact cache's read is the reconciler's own
	e2e.SetObserved(obj, want)
	return reconcile.Result{}, r.logic.Wrote(r.write(ctx, obj))
}

// writerFunc returns the function a reconciler writes with, given the
// informer factory.
type writerFunc[T object.Object] func(*informer.Factory) (func(context.Context, T) error, error)

// start wires the controller for o.Kind as a steady operator would. It
// writes with steady's client (client.For), whose writes the read-your-writes
// gate, the echo priority and echo dropping see. It links no client-go
// typed client: those link client-go's scheme of every built-in kind (see
// the parent's -scheme).
func start(ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic) (e2e.Running, error) {
	if o.Kind == e2e.KindCR {
		return run(ctx, cfg, o, l, steadyWriter[*v1alpha1.Widget](o))
	}
	return run(ctx, cfg, o, l, steadyWriter[*corev1.ConfigMap](o))
}

// steadyWriter writes with steady's client of T over the factory's shared
// informer.
func steadyWriter[T object.Object](o e2e.Options) writerFunc[T] {
	return func(f *informer.Factory) (func(context.Context, T) error, error) {
		c, err := client.For[T](f, o.Namespace)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, obj T) error {
			_, err := c.Update(ctx, obj)
			return err
		}, nil
	}
}

// run wires the controller of T: a shared informer from the factory (of a
// cluster whose scheme knows T), a controller with Prometheus metrics
// (recorded, not served, as the controller-runtime child's are), and the
// writer.
func run[T object.Object](ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic, writer writerFunc[T]) (e2e.Running, error) {
	st, err := steadySettings(o.Steady)
	if err != nil {
		return e2e.Running{}, err
	}
	if st.managed {
		return runManaged(ctx, cfg, o, l, writer, st)
	}
	cl, err := cluster.New(cfg, cluster.WithScheme(o.Kind.Scheme()), cluster.WithFastPaths(!st.stock), cluster.WithoutFastPaths(st.slow...))
	if err != nil {
		return e2e.Running{}, err
	}
	fopts := append(st.fopts, informer.WithKeepManagedFields(o.ManagedFields == "keep")) // the default drops them
	f, err := informer.NewFactory(cl, fopts...)
	if err != nil {
		return e2e.Running{}, err
	}
	r, inf, err := newReconciler(f, o.Namespace, l, writer)
	if err != nil {
		return e2e.Running{}, err
	}
	reg := prometheus.NewRegistry()
	wq, err := metrics.NewWorkqueue(reg)
	if err != nil {
		return e2e.Running{}, err
	}
	rec, err := metrics.NewReconcile(reg)
	if err != nil {
		return e2e.Running{}, err
	}
	c, err := controller.New(o.Kind.Resource(), r, append(st.copts, controller.WithMaxConcurrentReconciles(o.Workers),
		controller.WithMetricsProvider(wq), controller.WithMetrics(rec))...)
	if err != nil {
		return e2e.Running{}, err
	}
	if err := c.Watch(controller.Informer(inf, handler.EnqueueObject[T]())); err != nil {
		return e2e.Running{}, err
	}
	cachesDone := make(chan struct{})
	go func() { defer close(cachesDone); _ = f.Start(ctx) }()
	done := make(chan error, 1)
	go func() {
		err := c.Start(ctx)
		<-cachesDone
		done <- err
	}()
	return e2e.Running{Synced: inf.HasSynced, Done: done}, nil
}

// newReconciler returns the reconciler of T over the shared informer of
// namespace in f (no selector), writing with writer, and the informer.
func newReconciler[T object.Object](f *informer.Factory, namespace string, l *e2e.Logic, writer writerFunc[T]) (*reconciler[T], *informer.Informer[T], error) {
	inf, err := informer.For[T](f, namespace, object.Selector{})
	if err != nil {
		return nil, nil, err
	}
	r := &reconciler[T]{cache: inf.Cache(), logic: l}
	if r.write, err = writer(f); err != nil {
		return nil, nil, err
	}
	return r, inf, nil
}

// settings are what -steady chooses: controller and informer factory
// options, and whether the child runs on steady's manager.
type settings struct {
	copts   []controller.Option
	fopts   []informer.FactoryOption
	managed bool
	stock   bool               // cluster.WithFastPaths(false)
	slow    []cluster.FastPath // cluster.WithoutFastPaths
}

// steadySettings parses -steady's comma-separated settings.
func steadySettings(s string) (settings, error) {
	var st settings
	for _, name := range strings.Split(s, ",") {
		switch name {
		case "", "client":
		case "compact": // the default; accepted for older command lines
		case "shared":
			st.fopts = append(st.fopts, informer.WithCompact(false))
		case "echoes":
			st.copts = append(st.copts, controller.WithDropOwnEchoes(true))
		case "nogate":
			st.copts = append(st.copts, controller.WithReadYourWrites(false))
		case "nopq":
			st.copts = append(st.copts, controller.WithPriorityQueue(false))
		case "manager":
			st.managed = true
		case "stock":
			st.stock = true
		default:
			path, ok := strings.CutPrefix(name, "off:")
			if !ok || !slices.Contains(cluster.FastPaths, cluster.FastPath(path)) {
				return settings{}, fmt.Errorf("-steady %q: unknown setting %q (want shared, echoes, nogate, nopq, stock, manager, or off: and one of %v)", s, name, cluster.FastPaths)
			}
			st.slow = append(st.slow, cluster.FastPath(path))
		}
	}
	if st.managed && len(st.fopts) > 0 {
		return settings{}, fmt.Errorf("-steady %q: the manager's caches are compact; shared and manager do not go together", s)
	}
	return st, nil
}
