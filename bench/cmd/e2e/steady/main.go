// Command steady is the steady child of the end-to-end benchmark
// (bench/cmd/e2e): a ConfigMap controller written with steady's informer
// factory and controller, running the shared reconcile logic of package
// internal/e2e. The parent builds and runs it; see that command.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/object"
)

func main() { e2e.Main("steady", start) }

// reconciler reads a ConfigMap from the informer's cache and, when the
// shared logic says so, writes the observed annotation to the API server:
// with client-go's typed client, or with -steady client or echoes, with
// steady's (whose writes the read-your-writes gate and echo dropping see).
type reconciler struct {
	cache  *informer.Cache[*corev1.ConfigMap] // compact with -steady compact
	client corev1client.ConfigMapsGetter
	steady *client.Client[*corev1.ConfigMap] // set to write with it
	logic  *e2e.Logic
}

func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cm, ok := r.cache.Get(req.Namespace, req.Name)
	if !ok {
		cm = nil
	}
	want, write := r.logic.Observe(cm)
	if !write {
		return controller.Result{}, nil
	}
	if !r.cache.Compact() {
		cm = cm.DeepCopy() // the cache's objects are shared and read-only
	} // a compact cache's read is the reconciler's own
	e2e.SetObserved(cm, want)
	var err error
	if r.steady != nil {
		_, err = r.steady.Update(ctx, cm)
	} else {
		_, err = r.client.ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	return controller.Result{}, r.logic.Wrote(err)
}

// start wires the controller as a steady operator would: a shared informer
// from the factory, a controller with Prometheus metrics (recorded, not
// served, as the controller-runtime child's are), and a typed client for
// the writes.
func start(ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic) (e2e.Running, error) {
	cl, err := cluster.New(cfg)
	if err != nil {
		return e2e.Running{}, err
	}
	copts, fopts, err := steadySettings(o.Steady)
	if err != nil {
		return e2e.Running{}, err
	}
	fopts = append(fopts, informer.WithKeepManagedFields(o.ManagedFields == "keep")) // the default drops them
	f, err := informer.NewFactory(cl, fopts...)
	if err != nil {
		return e2e.Running{}, err
	}
	cms, err := informer.For[*corev1.ConfigMap](f, o.Namespace, object.Selector{})
	if err != nil {
		return e2e.Running{}, err
	}
	typed, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return e2e.Running{}, err
	}
	r := &reconciler{cache: cms.Cache(), client: typed, logic: l}
	if strings.Contains(o.Steady, "client") || strings.Contains(o.Steady, "echoes") {
		if r.steady, err = client.For[*corev1.ConfigMap](f, o.Namespace); err != nil {
			return e2e.Running{}, err
		}
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
	c, err := controller.New("configmaps", r, append(copts, controller.WithMaxConcurrentReconciles(o.Workers),
		controller.WithMetricsProvider(wq), controller.WithMetrics(rec))...)
	if err != nil {
		return e2e.Running{}, err
	}
	if err := c.Watch(controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())); err != nil {
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
	return e2e.Running{Synced: cms.HasSynced, Done: done}, nil
}

// steadySettings turns -steady's settings into controller and informer
// factory options.
func steadySettings(s string) ([]controller.Option, []informer.Option, error) {
	var opts []controller.Option
	var fopts []informer.Option
	for _, name := range strings.Split(s, ",") {
		switch name {
		case "", "client":
		case "compact":
			fopts = append(fopts, informer.WithCompact(true))
		case "echoes":
			opts = append(opts, controller.WithDropOwnEchoes(true))
		case "nogate":
			opts = append(opts, controller.WithReadYourWrites(false))
		case "nopq":
			opts = append(opts, controller.WithPriorityQueue(false))
		default:
			return nil, nil, fmt.Errorf("-steady %q: unknown setting %q (want client, compact, echoes, nogate or nopq)", s, name)
		}
	}
	return opts, fopts, nil
}
