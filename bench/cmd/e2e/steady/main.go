// Command steady is the steady child of the end-to-end benchmark
// (bench/cmd/e2e): a ConfigMap controller written with steady's informer
// factory and controller, running the shared reconcile logic of package
// internal/e2e. The parent builds and runs it; see that command.
package main

import (
	"context"
	"fmt"
	"slices"
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
// with steady's client, whose writes the read-your-writes gate, the echo
// priority and echo dropping see, or with -steady typed, with client-go's
// typed client, which records nothing.
type reconciler struct {
	cache  *informer.Cache[*corev1.ConfigMap]
	client corev1client.ConfigMapsGetter
	steady *client.Client[*corev1.ConfigMap] // nil with -steady typed
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
	cm = cm.DeepCopy() // the cache's objects are shared and read-only
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
// served, as the controller-runtime child's are), and steady's client for
// the writes.
func start(ctx context.Context, cfg *rest.Config, o e2e.Options, l *e2e.Logic) (e2e.Running, error) {
	cl, err := cluster.New(cfg)
	if err != nil {
		return e2e.Running{}, err
	}
	f, err := informer.NewFactory(cl, informer.WithKeepManagedFields(o.ManagedFields == "keep")) // the default drops them
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
	copts, err := steadySettings(o.Steady)
	if err != nil {
		return e2e.Running{}, err
	}
	if !slices.Contains(strings.Split(o.Steady, ","), "typed") {
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

// steadySettings turns -steady's settings into controller options.
func steadySettings(s string) ([]controller.Option, error) {
	var opts []controller.Option
	for _, name := range strings.Split(s, ",") {
		switch name {
		case "", "client", "typed":
		case "echoes":
			opts = append(opts, controller.WithDropOwnEchoes(true))
		case "nogate":
			opts = append(opts, controller.WithReadYourWrites(false))
		case "nopq":
			opts = append(opts, controller.WithPriorityQueue(false))
		default:
			return nil, fmt.Errorf("-steady %q: unknown setting %q (want typed, echoes, nogate or nopq)", s, name)
		}
	}
	return opts, nil
}
