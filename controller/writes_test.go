package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/writes"
)

// fakeCache is a writes.Cache whose progress the test moves: it
// shows a write once shown is set, and calls the waiter Notify hands it.
// With catchUpOnShows, it catches up right after answering Shows, as an
// informer that advances between the gate's two questions does.
type fakeCache struct {
	shown          atomic.Bool
	catchUpOnShows atomic.Bool
	mu             sync.Mutex
	waiter         func()
	asked          int // WhenShows calls that registered a waiter
}

func (c *fakeCache) Shows(writes.Write) bool {
	shown := c.shown.Load()
	if c.catchUpOnShows.Load() {
		c.shown.Store(true)
	}
	return shown
}

func (c *fakeCache) WhenShows(_ writes.Write, f func()) (func() bool, bool) {
	if c.shown.Load() {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiter, c.asked = f, c.asked+1
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		had := c.waiter != nil
		c.waiter = nil
		return had
	}, true
}

// catchUp shows every write and calls the waiter, as an informer does.
func (c *fakeCache) catchUp() {
	c.shown.Store(true)
	c.mu.Lock()
	f := c.waiter
	c.waiter = nil
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

func (c *fakeCache) registered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

// writeMetrics records the gate's metrics.
type writeMetricsRecorder struct {
	mu                     sync.Mutex
	held, timeouts, echoes int
	holds                  []time.Duration
}

func (m *writeMetricsRecorder) Started(string, int)                           {}
func (m *writeMetricsRecorder) Begin(string)                                  {}
func (m *writeMetricsRecorder) End(string, string, bool, bool, time.Duration) {}
func (m *writeMetricsRecorder) Held(string)                                   { m.do(func() { m.held++ }) }
func (m *writeMetricsRecorder) EchoDropped(string)                            { m.do(func() { m.echoes++ }) }
func (m *writeMetricsRecorder) HoldEnded(_ string, d time.Duration, timedOut bool) {
	m.do(func() {
		m.holds = append(m.holds, d)
		if timedOut {
			m.timeouts++
		}
	})
}
func (m *writeMetricsRecorder) do(f func()) { m.mu.Lock(); f(); m.mu.Unlock() }
func (m *writeMetricsRecorder) get() (held, timeouts, echoes, holds int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held, m.timeouts, m.echoes, len(m.holds)
}

// gateHarness runs a controller whose reconciler records one write to
// cache on its first call, fed by a pushSource.
type gateHarness struct {
	*harness
	cache   *fakeCache
	metrics *writeMetricsRecorder
	q       handler.PriorityQueue
}

func startGate(t *testing.T, opts ...Option) *gateHarness {
	first := true
	return startGateWith(t, func(ctx context.Context, g *gateHarness, rq reconcile.Request) {
		if first {
			first = false
			g.write(ctx, rq)
		}
	}, opts...)
}

// write records the write of object u1 at resourceVersion 7 to g.cache.
func (g *gateHarness) write(ctx context.Context, rq reconcile.Request) {
	writes.Record(ctx, writes.Write{Cache: g.cache, Namespace: rq.Namespace, Name: rq.Name, UID: "u1", ResourceVersion: "7"})
}

// startGateWith is startGate with a reconciler that calls before first.
func startGateWith(t *testing.T, before func(context.Context, *gateHarness, reconcile.Request), opts ...Option) *gateHarness {
	t.Helper()
	g := &gateHarness{cache: &fakeCache{}, metrics: &writeMetricsRecorder{}}
	h := &harness{t: t, clock: clocktesting.NewFakeClock(time.Now()), r: &scripted{calls: make(chan reconcile.Request, 100)}}
	r := reconcile.Func(func(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
		before(ctx, g, rq)
		return h.r.Reconcile(ctx, rq)
	})
	c, err := New("gate", r, append([]Option{WithClock(h.clock), WithMetrics(g.metrics)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	src := &pushSource{}
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.c, h.cancel, h.done = c, cancel, make(chan error, 1)
	go func() { h.done <- c.Start(ctx) }()
	testkit.Eventually(t, 10*time.Second, "the source to be attached", func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		return src.q != nil
	})
	src.mu.Lock()
	g.q = src.q.(handler.PriorityQueue)
	src.mu.Unlock()
	g.harness = h
	return g
}

func TestReadYourWritesHoldsUntilTheCacheShowsTheWrite(t *testing.T) {
	g := startGate(t)
	defer g.stop()
	g.q.Add(req("a"))
	g.expectCall() // records the write
	g.q.AddWithOpts(handler.AddOpts{Reasons: reconcile.PrimaryUpdated}, req("a"))
	testkit.Eventually(t, 10*time.Second, "the request to be held", func() bool { return g.cache.registered() == 1 })
	g.expectNoCall()
	if held, _, _, _ := g.metrics.get(); held != 1 {
		t.Fatalf("held = %d, want 1", held)
	}
	g.q.AddWithOpts(handler.AddOpts{Reasons: reconcile.OwnedCreated}, req("a")) // taken and held again: no second waiter
	g.expectNoCall()
	g.cache.catchUp()
	g.expectCall()
	g.expectNoCall() // one reconcile for the held adds
	g.r.mu.Lock()
	why := g.r.why[len(g.r.why)-1]
	g.r.mu.Unlock()
	if !why.Has(reconcile.PrimaryUpdated | reconcile.OwnedCreated) {
		t.Errorf("reasons of the held reconcile = %v, want primary_updated and owned_created", why)
	}
	held, timeouts, _, holds := g.metrics.get()
	if held != 1 || timeouts != 0 || holds != 1 || g.cache.registered() != 1 {
		t.Errorf("held %d, timeouts %d, holds ended %d, waiters %d; want 1, 0, 1, 1", held, timeouts, holds, g.cache.registered())
	}
	// Caught up: the next add runs at once.
	g.q.Add(req("a"))
	g.expectCall()
}

func TestReadYourWritesRunsAfterTheBound(t *testing.T) {
	g := startGate(t, WithReadYourWritesTimeout(3*time.Second))
	defer g.stop()
	g.q.Add(req("a"))
	g.expectCall()
	g.q.Add(req("a"))
	testkit.Eventually(t, 10*time.Second, "the request to be held", func() bool { return g.cache.registered() == 1 })
	g.expectNoCall()
	g.step(3 * time.Second)
	g.expectCall()
	if held, timeouts, _, holds := g.metrics.get(); held != 1 || timeouts != 1 || holds != 1 {
		t.Errorf("held %d, timeouts %d, holds ended %d; want 1 each", held, timeouts, holds)
	}
	g.cache.catchUp() // the waiter was cancelled: nothing more runs
	g.expectNoCall()
}

func TestReadYourWritesOff(t *testing.T) {
	g := startGate(t, WithReadYourWrites(false))
	defer g.stop()
	g.q.Add(req("a"))
	g.expectCall()
	g.q.Add(req("a"))
	g.expectCall()
	if n := g.cache.registered(); n != 0 {
		t.Errorf("waiters = %d, want none with the gate off", n)
	}
}

func TestOwnEchoesAreDroppedForTheWritingRequestOnly(t *testing.T) {
	g := startGate(t, WithDropOwnEchoes(true), WithReadYourWrites(false))
	defer g.stop()
	g.q.Add(req("a"))
	g.expectCall() // wrote u1 at resourceVersion 7
	eq := newEventQueues(g.q)
	deliver := func(r reconcile.Request, rv string) {
		eq.update.echo = echoOf{eq.echoes, "u1", rv}
		eq.update.Add(r)
		eq.update.echo = echoOf{}
	}
	deliver(req("b"), "7") // mapped to another request: kept
	g.expectCall()
	deliver(req("a"), "7") // the echo
	g.expectNoCall()
	deliver(req("a"), "7") // forgotten once dropped
	g.expectCall()
	if _, _, echoes, _ := g.metrics.get(); echoes != 1 {
		t.Errorf("echoes dropped = %d, want 1", echoes)
	}
}

func TestWriteGateSweepsShownWrites(t *testing.T) {
	c, err := New("sweep", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	g := newWriteGate(c)
	cache := &fakeCache{}
	cache.shown.Store(true)
	for i := range 10 * minSweep {
		g.record(reconcile.Request{NamespacedName: req("x").NamespacedName}, 0, writes.Write{Cache: cache, ResourceVersion: "1"})
		g.record(req(string(rune('a'+i%26))+string(rune(i))), 0, writes.Write{Cache: cache, ResourceVersion: "1"})
	}
	if n := len(g.pending); n >= minSweep {
		t.Errorf("%d requests pending after writes their cache shows, want fewer than %d", n, minSweep)
	}
}

// An echo can come before the write's response: an update delivered while
// the writing reconcile runs waits for it to end, then is dropped if it is
// the echo and added if not.
func TestOwnEchoBeforeTheWriteIsRecorded(t *testing.T) {
	entered, proceed := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	h := startGateWith(t, func(ctx context.Context, g *gateHarness, rq reconcile.Request) {
		if calls.Add(1) <= 2 {
			entered <- struct{}{}
			<-proceed
			g.write(ctx, rq)
		}
	}, WithDropOwnEchoes(true))
	defer h.stop()
	h.cache.shown.Store(true)
	eq := newEventQueues(h.q)
	deliver := func(rv string) {
		eq.update.echo = echoOf{eq.echoes, "u1", rv}
		eq.update.Add(req("a"))
		eq.update.echo = echoOf{}
	}

	eq.create.Add(req("a"))
	<-entered
	deliver("7") // the echo, before the write is recorded
	close(proceed)
	h.expectCall()
	h.expectNoCall()

	proceed = make(chan struct{})
	eq.create.Add(req("a"))
	<-entered
	deliver("6") // someone else's change, during the reconcile
	close(proceed)
	h.expectCall()
	h.expectCall() // handed out again for it
}

// With the priority queue, the echo of a write made by a low-priority
// reconcile (the initial list's) is queued at that priority, behind the
// initial list's other requests, while someone else's change goes ahead
// of them.
func TestOwnEchoKeepsTheWritersPriority(t *testing.T) {
	for _, tc := range []struct {
		name, rv string
		order    []string
	}{
		{"echo", "7", []string{"a", "b", "a"}},
		{"someone else's change", "8", []string{"a", "a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entered, proceed := make(chan struct{}), make(chan struct{})
			first := true
			h := startGateWith(t, func(ctx context.Context, g *gateHarness, rq reconcile.Request) {
				if first {
					first = false
					g.write(ctx, rq) // u1 at resourceVersion 7
					entered <- struct{}{}
					<-proceed
				}
			})
			defer h.stop()
			h.cache.shown.Store(true)
			eq := newEventQueues(h.q)
			eq.initial.Add(req("a"))
			<-entered
			eq.initial.Add(req("b"))
			eq.update.echo = echoOf{eq.echoes, "u1", tc.rv}
			eq.update.Add(req("a"))
			eq.update.echo = echoOf{}
			close(proceed)
			for _, name := range tc.order {
				h.expectReconcile(name)
			}
			h.expectNoCall()
		})
	}
}
