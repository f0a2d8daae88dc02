package controller

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
)

// pushSource adds requests when the test says so, through the queue it was
// attached with, and counts its attachments; it lives in tests only.
type pushSource struct {
	mu                 sync.Mutex
	q                  handler.Queue
	attached, detached int
}

func (s *pushSource) Name() string    { return "push" }
func (s *pushSource) HasSynced() bool { return true }
func (s *pushSource) Attach(_ context.Context, q handler.Queue) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q = q
	s.attached++
	return func() {
		s.mu.Lock()
		s.detached++
		s.mu.Unlock()
	}, nil
}

// push adds a request through the last queue the source was attached with,
// as a handler call in progress during Unwatch would.
func (s *pushSource) push(name string) {
	s.mu.Lock()
	q := s.q
	s.mu.Unlock()
	q.Add(req(name))
}

func (s *pushSource) counts() (attached, detached int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attached, s.detached
}

// expectReconcile waits for a reconcile of name and fails on any other.
func (h *harness) expectReconcile(name string) {
	h.t.Helper()
	select {
	case r := <-h.r.calls:
		if r != req(name) {
			h.t.Fatalf("reconciled %v, want %v", r, req(name))
		}
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no reconcile of %s", name)
	}
}

func TestWatchAfterStartAttachesAtOnceAndUnwatchGatesTheQueue(t *testing.T) {
	h := start(t)
	defer h.stop()
	h.expectReconcile("a") // running

	src, control := &pushSource{}, &pushSource{}
	for _, s := range []*pushSource{src, control} {
		if err := h.c.Watch(s); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.counts(); a != 1 {
			t.Fatalf("Watch on a running controller returned with the source attached %d times, want 1", a)
		}
	}
	src.push("dynamic")
	h.expectReconcile("dynamic")

	if err := h.c.Unwatch(src); err != nil {
		t.Fatal(err)
	}
	if _, d := src.counts(); d != 1 {
		t.Fatalf("Unwatch detached the source %d times, want 1", d)
	}
	// A handler call still in progress adds after Unwatch returned: the
	// gate drops it. One worker and a FIFO queue: had it been added, it
	// would be reconciled before the control's request.
	src.push("late")
	control.push("control")
	h.expectReconcile("control")

	if err := h.c.Unwatch(src); err == nil || !strings.Contains(err.Error(), "Unwatch(push): not watched") {
		t.Errorf("second Unwatch: %v, want an error naming the source", err)
	}
	if err := h.c.Watch(src); err != nil {
		t.Fatalf("Watch after Unwatch: %v", err)
	}
	src.push("again")
	h.expectReconcile("again")
}

func TestWatchRefusesBadSources(t *testing.T) {
	c, err := New("bad", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(nil); err == nil {
		t.Error("Watch(nil) succeeded")
	}
	if err := c.Unwatch(nil); err == nil {
		t.Error("Unwatch(nil) succeeded")
	}
	slice := requests{"a"} // not comparable: it can be watched, not unwatched
	if err := c.Watch(slice); err != nil {
		t.Fatal(err)
	}
	if err := c.Unwatch(slice); err == nil || !strings.Contains(err.Error(), "not comparable") {
		t.Errorf("Unwatch of a slice source: %v, want an error saying it is not comparable", err)
	}
	src := &pushSource{}
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	if err := c.Unwatch(src); err != nil { // before Start: forgotten, never attached
		t.Fatal(err)
	}
	if a, _ := src.counts(); a != 0 {
		t.Errorf("a source unwatched before Start was attached %d times", a)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(&pushSource{}); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Watch after the controller stopped: %v, want an error saying so", err)
	}
}

// requests is a non-comparable Source of fixed requests.
type requests []string

func (requests) Name() string    { return "static" }
func (requests) HasSynced() bool { return true }
func (r requests) Attach(_ context.Context, q handler.Queue) (func(), error) {
	for _, name := range r {
		q.Add(req(name))
	}
	return func() {}, nil
}

// TestWatchRacesStartAndShutdown adds and removes sources while the
// controller starts and stops (go test -race): every source attached is
// detached by the time Start returns, and none is attached after.
func TestWatchRacesStartAndShutdown(t *testing.T) {
	for range 20 {
		c, err := New("race", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var srcs []*pushSource
		var mu sync.Mutex
		for range 4 {
			wg.Go(func() {
				for range 20 {
					s := &pushSource{}
					mu.Lock()
					srcs = append(srcs, s)
					unwatch := len(srcs)%2 == 0
					mu.Unlock()
					if c.Watch(s) == nil && unwatch {
						_ = c.Unwatch(s)
					}
				}
			})
		}
		done := make(chan error, 1)
		go func() { done <- c.Start(ctx) }()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		mu.Lock()
		for _, s := range srcs {
			if a, d := s.counts(); a != d || a > 1 {
				t.Fatalf("a source was attached %d times and detached %d times", a, d)
			}
		}
		mu.Unlock()
	}
}
