package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// requests is a Source with fixed requests, always synced.
type requests []string

func (requests) Name() string    { return "static" }
func (requests) HasSynced() bool { return true }
func (r requests) Attach(_ context.Context, q handler.Queue) (func(), error) {
	for _, n := range r {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: n}})
	}
	return func() {}, nil
}

func TestMetricsEndpointAfterReconciles(t *testing.T) {
	reg := prometheus.NewRegistry()
	wq, err := metrics.NewWorkqueue(reg)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := metrics.NewReconcile(reg)
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Int32
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		defer done.Add(1)
		switch req.Name {
		case "fails":
			return reconcile.Result{}, reconcile.TerminalError(errors.New("bad"))
		case "panics":
			panic("bug")
		case "later":
			return reconcile.Result{RequeueAfter: time.Hour}, nil
		}
		return reconcile.Result{}, nil
	})
	c, err := controller.New("demo", r, controller.WithMetricsProvider(wq), controller.WithMetrics(rec),
		controller.WithRateLimiter(workqueue.NewExponentialLimiter[reconcile.Request](time.Hour, time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Watch(requests{"ok", "fails", "panics", "later"})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()
	testkit.Eventually(t, 10*time.Second, "the four reconciles", func() bool { return done.Load() >= 4 })

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`controller_runtime_reconcile_total{controller="demo",result="success"} 1`,
		`controller_runtime_reconcile_total{controller="demo",result="error"} 2`,
		`controller_runtime_reconcile_total{controller="demo",result="requeue_after"} 1`,
		`controller_runtime_reconcile_errors_total{controller="demo"} 2`,
		`controller_runtime_terminal_reconcile_errors_total{controller="demo"} 1`,
		`controller_runtime_reconcile_panics_total{controller="demo"} 1`,
		`controller_runtime_reconcile_time_seconds_count{controller="demo"} 4`,
		`controller_runtime_max_concurrent_reconciles{controller="demo"} 1`,
		`controller_runtime_active_workers{controller="demo"} 0`,
		`workqueue_adds_total{name="demo"} 4`,
		`workqueue_depth{name="demo",priority="0"}`,
		`steady_reconcile_reasons_total{controller="demo",reason="external"} 4`,
		`workqueue_queue_duration_seconds_count{name="demo"}`,
		`workqueue_work_duration_seconds_count{name="demo"}`,
		`workqueue_unfinished_work_seconds{name="demo"}`,
		`workqueue_longest_running_processor_seconds{name="demo"}`,
		`workqueue_retries_total{name="demo"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestRegisteringTwiceIsAnError(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.NewReconcile(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.NewReconcile(reg); err == nil || !strings.Contains(err.Error(), "registering reconcile metrics") {
		t.Fatalf("second registration: %v", err)
	}
}

// TestWorkqueueDepthByPriority checks that a priority queue's depth is
// labelled by priority while a plain queue's keeps its name label only,
// in one registry that gathers both without error, and the flow gauges.
func TestWorkqueueDepthByPriority(t *testing.T) {
	reg := prometheus.NewRegistry()
	wq, err := metrics.NewWorkqueue(reg)
	if err != nil {
		t.Fatal(err)
	}
	plain := workqueue.New[string](workqueue.WithName("plain"), workqueue.WithMetricsProvider(wq))
	defer plain.ShutDown()
	pq := workqueue.NewPriority[string](nil, workqueue.WithName("pq"), workqueue.WithMetricsProvider(wq))
	defer pq.ShutDown()
	plain.Add("a")
	low := workqueue.LowPriority
	pq.AddWithOpts(workqueue.AddOpts{Priority: &low, Flow: "ns-1"}, "ns-1/a", "ns-1/b")
	pq.AddWithOpts(workqueue.AddOpts{Flow: "ns-2"}, "ns-2/a")

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	var body string
	testkit.Eventually(t, 10*time.Second, "the flow gauges", func() bool {
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics: %s\n%s", resp.Status, b)
		}
		body = string(b)
		return strings.Contains(body, `workqueue_flows{name="pq"} 2`)
	})
	for _, want := range []string{
		`workqueue_depth{name="plain"} 1`,
		`workqueue_depth{name="pq",priority="-100"} 2`,
		`workqueue_depth{name="pq",priority="0"} 1`,
		`workqueue_largest_flow_depth{name="pq"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `workqueue_depth{name="pq"}`) {
		t.Error("the priority queue has an unlabelled depth too")
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	if _, err := metrics.NewWorkqueue(reg); err == nil {
		t.Error("registering the workqueue metrics twice did not fail")
	}
}
