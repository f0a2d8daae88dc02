package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// fakeSource adds fixed requests when started; it lives in tests only.
type fakeSource struct {
	reqs   []reconcile.Request
	synced atomic.Bool
}

func (s *fakeSource) Name() string    { return "fake" }
func (s *fakeSource) HasSynced() bool { return s.synced.Load() }
func (s *fakeSource) Attach(_ context.Context, q handler.Queue) (func(), error) {
	for _, r := range s.reqs {
		q.Add(r)
	}
	return func() {}, nil
}

func req(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// scripted answers each call with the next outcome and reports it on calls.
type scripted struct {
	mu       sync.Mutex
	outcomes []func() (reconcile.Result, error)
	calls    chan reconcile.Request
	why      []reconcile.Reasons // of each call, in order
}

func (s *scripted) Reconcile(ctx context.Context, r reconcile.Request) (reconcile.Result, error) {
	s.mu.Lock()
	s.why = append(s.why, reconcile.ReasonsFrom(ctx))
	next := func() (reconcile.Result, error) { return reconcile.Result{}, nil }
	if len(s.outcomes) > 0 {
		next, s.outcomes = s.outcomes[0], s.outcomes[1:]
	}
	s.mu.Unlock()
	defer func() { s.calls <- r }()
	return next()
}

type harness struct {
	t      *testing.T
	clock  *clocktesting.FakeClock
	c      *Controller
	r      *scripted
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, outcomes ...func() (reconcile.Result, error)) *harness {
	t.Helper()
	h := &harness{t: t, clock: clocktesting.NewFakeClock(time.Now()), r: &scripted{outcomes: outcomes, calls: make(chan reconcile.Request, 100)}}
	c, err := New("test", h.r, WithClock(h.clock),
		WithRateLimiter(workqueue.NewExponentialLimiter[reconcile.Request](time.Second, time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{reqs: []reconcile.Request{req("a")}}
	src.synced.Store(true)
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.c, h.cancel, h.done = c, cancel, make(chan error, 1)
	go func() { h.done <- c.Start(ctx) }()
	return h
}

// expectCall waits for the next reconcile.
func (h *harness) expectCall() {
	h.t.Helper()
	select {
	case <-h.r.calls:
	case <-time.After(10 * time.Second):
		h.t.Fatal("no reconcile")
	}
}

// expectNoCall checks nothing is reconciled without the clock moving.
func (h *harness) expectNoCall() {
	h.t.Helper()
	select {
	case r := <-h.r.calls:
		h.t.Fatalf("unexpected reconcile of %v", r)
	case <-time.After(50 * time.Millisecond):
	}
}

// step advances the fake clock once the queue has a timer waiting.
func (h *harness) step(d time.Duration) {
	h.t.Helper()
	testkit.Eventually(h.t, 10*time.Second, "the queue to wait on the clock", h.clock.HasWaiters)
	h.clock.Step(d)
}

// requeues waits until the request's failure count is n: the fake reports a
// call from inside Reconcile, before the controller has handled the outcome.
func (h *harness) requeues(n int, what string) {
	h.t.Helper()
	testkit.Eventually(h.t, 10*time.Second, "the failure count ("+what+")", func() error {
		if got := h.c.queue.NumRequeues(req("a")); got != n {
			return fmt.Errorf("NumRequeues = %d, want %d", got, n)
		}
		return nil
	})
}

func (h *harness) stop() {
	h.t.Helper()
	h.cancel()
	if err := <-h.done; err != nil {
		h.t.Fatalf("Start returned %v", err)
	}
}

func TestErrorRequeuesWithBackoff(t *testing.T) {
	h := start(t, func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("boom") })
	h.expectCall()
	h.expectNoCall() // waits for the 1s backoff
	h.requeues(1, "after one failure")
	h.step(time.Second)
	h.expectCall() // the retry succeeds...
	h.requeues(0, "...and forgets the backoff")
	h.stop()
}

func TestRequeueAfterForgetsAndWaits(t *testing.T) {
	h := start(t,
		func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("first fails") },
		func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: 30 * time.Second}, nil },
	)
	h.expectCall()
	h.step(time.Second)
	h.expectCall()
	h.requeues(0, "RequeueAfter must forget the failure backoff")
	h.step(29 * time.Second)
	h.expectNoCall()
	h.step(time.Second)
	h.expectCall()
	h.stop()
}

func TestTerminalErrorIsNotRetried(t *testing.T) {
	h := start(t,
		func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("transient") },
		func() (reconcile.Result, error) {
			return reconcile.Result{}, reconcile.TerminalError(errors.New("bad spec"))
		},
	)
	h.expectCall()
	h.step(time.Second)
	h.expectCall()
	h.requeues(0, "terminal error must forget the backoff")
	if h.clock.HasWaiters() {
		t.Fatal("terminal error scheduled a retry")
	}
	h.expectNoCall()
	h.stop()
}

func TestErrorWinsOverRequeueAfter(t *testing.T) {
	h := start(t, func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: time.Hour}, errors.New("both") })
	h.expectCall()
	h.step(time.Second) // the backoff, not the hour
	h.expectCall()
	h.stop()
}

func TestPanicIsRecoveredAsError(t *testing.T) {
	h := start(t, func() (reconcile.Result, error) { panic("reconciler bug") })
	h.expectCall()
	h.requeues(1, "panic must count as a failure")
	h.step(time.Second)
	h.expectCall()
	h.stop()
}

func TestSyncTimeoutNamesTheSource(t *testing.T) {
	c, err := New("stuck", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
		WithCacheSyncTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Watch(&fakeSource{})
	err = c.Start(context.Background())
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !containsAll(err.Error(), "stuck", "fake") {
		t.Fatalf("Start with an unsynced source: %v", err)
	}
}

func TestOptionsAreValidated(t *testing.T) {
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"workers", []Option{WithMaxConcurrentReconciles(0)}, "WithMaxConcurrentReconciles(0)"},
		{"sync timeout", []Option{WithCacheSyncTimeout(0)}, "WithCacheSyncTimeout(0s)"},
		{"reconcile timeout", []Option{WithReconcileTimeout(-time.Second)}, "WithReconcileTimeout(-1s)"},
		{"max wait", []Option{WithMaxWait(0)}, "WithMaxWait(0s): must be positive"},
		{"debounce window", []Option{WithDebounce(0, time.Second)}, "WithDebounce(0s, 1s): the window must be positive"},
		{"debounce max", []Option{WithDebounce(time.Second, time.Millisecond)}, "WithDebounce(1s, 1ms): the maximum delay must be at least the window"},
		{"max wait, plain queue", []Option{WithPriorityQueue(false), WithMaxWait(time.Second)}, "WithMaxWait needs the priority queue"},
		{"fairness, plain queue", []Option{WithFairness(true), WithPriorityQueue(false)}, "WithFairness(true) needs the priority queue"},
		{"debounce, plain queue", []Option{WithPriorityQueue(false), WithDebounce(time.Second, time.Second)}, "WithDebounce needs the priority queue"},
	} {
		if _, err := New("c", r, tc.opts...); err == nil || !containsAll(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := New("", r); err == nil {
		t.Error("empty name accepted")
	}
	if _, err := New("c", nil); err == nil {
		t.Error("nil reconciler accepted")
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestShutdownLetsInFlightFinishAndTakesNoMore(t *testing.T) {
	started, release := make(chan reconcile.Request, 10), make(chan struct{})
	var finished atomic.Int32
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		started <- req
		<-release
		if ctx.Err() != nil {
			t.Errorf("in-flight reconcile's context was cancelled by shutdown: %v", ctx.Err())
		}
		LoggerFrom(ctx).Info("reconciling")
		finished.Add(1)
		return reconcile.Result{}, nil
	})
	var logMu sync.Mutex
	var lines []string
	log := funcr.New(func(_, args string) { logMu.Lock(); lines = append(lines, args); logMu.Unlock() }, funcr.Options{})
	c, err := New("shutdown", r, WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{reqs: []reconcile.Request{req("first"), req("second"), req("third")}}
	src.synced.Store(true)
	_ = c.Watch(src)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	if got := <-started; got != req("first") {
		t.Fatalf("first reconcile: %v", got)
	}
	cancel()
	select {
	case <-done:
		t.Fatal("Start returned while a reconcile was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := finished.Load(); n != 1 {
		t.Fatalf("%d reconciles ran; after cancel no queued request may start", n)
	}
	logMu.Lock()
	defer logMu.Unlock()
	var found bool
	for _, l := range lines {
		if strings.Contains(l, `"msg"="reconciling"`) {
			found = containsAll(l, `"controller"="shutdown"`, `"namespace"="ns"`, `"name"="first"`, `"reconcileID"=`)
			if !found {
				t.Fatalf("reconcile logger lacks its keys: %s", l)
			}
		}
	}
	if !found {
		t.Fatalf("the reconciler's log line is missing: %q", lines)
	}
}
