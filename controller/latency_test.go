package controller

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// latencies records EventToReconcile calls; the other Metrics do nothing.
type latencies struct {
	mu  sync.Mutex
	got []time.Duration
}

func (*latencies) Started(string, int)                           {}
func (*latencies) Begin(string)                                  {}
func (*latencies) End(string, string, bool, bool, time.Duration) {}
func (l *latencies) EventToReconcile(_ string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, d)
}

func (l *latencies) all() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.got...)
}

// gatedSource adds its requests at Start and says so on started.
type gatedSource struct {
	fakeSource
	started chan struct{}
}

func (s *gatedSource) Attach(ctx context.Context, q handler.Queue) (func(), error) {
	stop, err := s.fakeSource.Attach(ctx, q)
	close(s.started)
	return stop, err
}

// An event's latency runs from its delivery to its reconcile's start, and
// retries of the same request are not events: they are not counted again.
func TestEventToReconcileLatency(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Now())
	r := &scripted{calls: make(chan reconcile.Request, 10), outcomes: []func() (reconcile.Result, error){
		func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("boom") },
	}}
	m := &latencies{}
	c, err := New("lat", r, WithClock(clock), WithMetrics(m),
		WithRateLimiter(workqueue.NewExponentialLimiter[reconcile.Request](time.Second, time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	src := &gatedSource{fakeSource: fakeSource{reqs: []reconcile.Request{req("a")}}, started: make(chan struct{})}
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clock: clock, c: c, r: r, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- c.Start(ctx) }()
	defer h.stop()

	<-src.started
	clock.Step(3 * time.Second) // the request waits for the caches to sync
	src.synced.Store(true)
	h.expectCall() // fails
	h.step(time.Second)
	h.expectCall() // the retry
	h.requeues(0, "after the successful retry")
	if got := m.all(); len(got) != 1 || got[0] != 3*time.Second {
		t.Fatalf("latencies %v, want one of 3s", got)
	}
}
