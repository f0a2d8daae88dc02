package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// printMetrics prints the counter and gauge series of the named metrics
// that reg gathers, as name{labels} value, in Prometheus's order.
func printMetrics(reg prometheus.Gatherer, names ...string) {
	families, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range families {
		if !slices.Contains(names, f.GetName()) {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			value := m.GetCounter().GetValue() + m.GetGauge().GetValue()
			fmt.Printf("%s{%s} %g\n", f.GetName(), strings.Join(labels, ","), value)
		}
	}
}

// A work queue reports under the client-go names, labelled by its name.
// A key added again while it waits counts as one add, and the depth is
// what waits, not what a worker is processing.
func ExampleNewWorkqueue() {
	reg := prometheus.NewRegistry()
	wq, err := metrics.NewWorkqueue(reg)
	if err != nil {
		log.Fatal(err)
	}
	q := workqueue.New[string](workqueue.WithName("deployments"), workqueue.WithMetricsProvider(wq))
	defer q.ShutDown()
	q.Add("shop/web")
	q.Add("shop/db")
	q.Add("shop/web") // still waiting: not added twice
	key, _ := q.Get()
	fmt.Println("processing", key)
	printMetrics(reg, "workqueue_adds_total", "workqueue_depth")
	q.Done(key)
	// Output:
	// processing shop/web
	// workqueue_adds_total{name="deployments"} 2
	// workqueue_depth{name="deployments"} 1
}

// fixedRequests is a controller source of fixed requests in namespace
// shop, standing in for an informer.
type fixedRequests []string

func (fixedRequests) Name() string    { return "fixed" }
func (fixedRequests) HasSynced() bool { return true }
func (r fixedRequests) Attach(_ context.Context, q handler.Queue) (func(), error) {
	for _, name := range r {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}})
	}
	return func() {}, nil
}

// A controller given Reconcile (and Workqueue for its queue) records its
// reconciles under controller-runtime's names, so existing dashboards
// and alerts work; a manager does this for every controller it runs and
// serves the registry on /metrics.
func ExampleNewReconcile() {
	reg := prometheus.NewRegistry()
	wq, err := metrics.NewWorkqueue(reg)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := metrics.NewReconcile(reg)
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{}, 3)
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		defer func() { done <- struct{}{} }()
		switch req.Name {
		case "broken":
			return reconcile.Result{}, reconcile.TerminalError(errors.New("bad spec")) // not retried
		case "warming":
			return reconcile.Result{RequeueAfter: time.Hour}, nil
		}
		return reconcile.Result{}, nil
	})
	c, err := controller.New("shop", r, controller.WithMetrics(rec), controller.WithMetricsProvider(wq))
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Watch(fixedRequests{"web", "broken", "warming"}); err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- c.Start(ctx) }()
	for range 3 {
		<-done
	}
	stop()
	// Start returns after its workers, so every reconcile is recorded.
	if err := <-stopped; err != nil {
		log.Fatal(err)
	}
	printMetrics(reg, "controller_runtime_reconcile_total", "controller_runtime_terminal_reconcile_errors_total",
		"workqueue_adds_total")
	// Output:
	// controller_runtime_reconcile_total{controller="shop",result="error"} 1
	// controller_runtime_reconcile_total{controller="shop",result="requeue_after"} 1
	// controller_runtime_reconcile_total{controller="shop",result="success"} 1
	// controller_runtime_terminal_reconcile_errors_total{controller="shop"} 1
	// workqueue_adds_total{name="shop"} 3
}
