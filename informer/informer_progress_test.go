package informer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

// bookmark sends a watch bookmark at rv: progress without an object change.
func bookmark(w *watch.FakeWatcher, rv string) {
	w.Action(watch.Bookmark, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}})
}

// fired counts the calls of a WhenProcessed callback.
type fired struct {
	n  atomic.Int32
	ch chan struct{} // closed by the first call
}

func newFired() *fired { return &fired{ch: make(chan struct{})} }

func (f *fired) call() {
	if f.n.Add(1) == 1 {
		close(f.ch)
	}
}

func (f *fired) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-f.ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the waiter never ran", what)
	}
}

// startSynced runs inf over lw and waits for its first list and watch.
func startSynced(t *testing.T, inf *Informer[*corev1.ConfigMap], lw *scriptLW) (*watch.FakeWatcher, func()) {
	t.Helper()
	stop := runInformer(t, inf)
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "the first list", inf.HasSynced)
	return w, stop
}

// A bookmark moves the cache's resourceVersion with no object change, and
// that is enough to run a waiter; an event does the same. Progress tells
// when each arrived and advanced, by the informer's clock.
func TestWhenProcessedRunsOnEventsAndBookmarks(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	t0 := clk.Now()
	lw := newScriptLW(list("10", cmv("a", "5")))
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"), WithClock(clk))
	if p := inf.Progress(); p != (Progress{}) {
		t.Fatalf("Progress before Start = %+v, want zero", p)
	}
	if inf.HasProcessed("ns", "1") {
		t.Fatal("HasProcessed before the first list")
	}
	w, stop := startSynced(t, inf, lw)
	defer stop()
	testkit.Eventually(t, 10*time.Second, "the list processed", func() bool { return inf.HasProcessed("ns", "10") })
	if p := inf.Progress(); p.ResourceVersion != "10" || !p.Advanced.Equal(t0) || !p.Received.Equal(t0) {
		t.Fatalf("Progress after the list = %+v, want 10 at %v", p, t0)
	}

	f := newFired()
	cancel, waiting := inf.WhenProcessed("ns", "12", f.call)
	if !waiting || inf.HasProcessed("ns", "12") {
		t.Fatalf("waiting for 12 at 10: waiting %v, HasProcessed %v", waiting, inf.HasProcessed("ns", "12"))
	}
	clk.Step(time.Second)
	bookmark(w, "11")
	testkit.Eventually(t, 10*time.Second, "the bookmark at 11", func() bool { return inf.Progress().ResourceVersion == "11" })
	if f.n.Load() != 0 {
		t.Fatal("the waiter for 12 ran at 11")
	}
	clk.Step(time.Second)
	bookmark(w, "12")
	f.wait(t, "a bookmark at 12")
	if !inf.HasProcessed("ns", "12") || cancel() {
		t.Fatalf("after the bookmark: HasProcessed %v; cancel of a waiter that ran must report false", inf.HasProcessed("ns", "12"))
	}
	at := t0.Add(2 * time.Second)
	if p := inf.Progress(); p.ResourceVersion != "12" || !p.Advanced.Equal(at) || !p.Received.Equal(at) {
		t.Fatalf("Progress after the bookmark = %+v, want 12 at %v", p, at)
	}

	// A bookmark that moves nothing was received, but the cache did not
	// advance: Received is later than Advanced.
	clk.Step(time.Second)
	bookmark(w, "12")
	testkit.Eventually(t, 10*time.Second, "the repeated bookmark received", func() bool { return inf.Progress().Received.After(at) })
	if p := inf.Progress(); !p.Advanced.Equal(at) {
		t.Fatalf("Advanced moved to %v on a bookmark that changed nothing", p.Advanced)
	}

	g := newFired()
	if _, waiting := inf.WhenProcessed("ns", "13", func() {
		if c, ok := inf.Cache().Get("ns", "a"); !ok || c.ResourceVersion != "13" {
			t.Errorf("the waiter for 13 ran with %v cached", c)
		}
		g.call()
	}); !waiting {
		t.Fatal("not waiting for 13")
	}
	w.Modify(cmv("a", "13"))
	g.wait(t, "an event at 13")
	if _, waiting := inf.WhenProcessed("ns", "13", g.call); waiting {
		t.Fatal("waiting for a resourceVersion already processed")
	}
	if n := g.n.Load(); n != 1 {
		t.Fatalf("the waiter ran %d times", n)
	}
}

// resourceVersions that are not numbers cannot be compared: both calls
// fail open, on the caller's side and on the cache's.
func TestProgressFailsOpenOnOpaqueResourceVersions(t *testing.T) {
	lw := newScriptLW(list("10"))
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"))
	for _, rv := range []string{"", "abc", "-1", "1.5"} {
		if _, waiting := inf.WhenProcessed("ns", rv, mustNotRun(t)); waiting || !inf.HasProcessed("ns", rv) {
			t.Fatalf("resourceVersion %q: waiting %v, HasProcessed %v; want fail-open", rv, waiting, inf.HasProcessed("ns", rv))
		}
	}

	lw = newScriptLW(&corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "opaque-1"}})
	inf = mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"))
	f := newFired()
	if _, waiting := inf.WhenProcessed("ns", "7", f.call); !waiting {
		t.Fatal("not waiting before the first list")
	}
	_, stop := startSynced(t, inf, lw)
	defer stop()
	f.wait(t, "a list at an opaque resourceVersion")
	if _, waiting := inf.WhenProcessed("ns", "7", mustNotRun(t)); waiting || !inf.HasProcessed("ns", "7") {
		t.Fatal("a cache at an opaque resourceVersion does not fail open")
	}
	if p := inf.Progress(); p.ResourceVersion != "opaque-1" {
		t.Fatalf("Progress().ResourceVersion = %q, want the list's", p.ResourceVersion)
	}
}

// When the informer stops, every waiter runs, once; a cancelled one never
// does, and nothing waits on a stopped informer.
func TestWaitersRunWhenTheInformerStops(t *testing.T) {
	lw := newScriptLW(list("10"))
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"))
	_, stop := startSynced(t, inf, lw)
	kept, dropped := newFired(), newFired()
	if _, waiting := inf.WhenProcessed("", "100", kept.call); !waiting {
		t.Fatal("not waiting for 100")
	}
	cancel, waiting := inf.WhenProcessed("", "100", dropped.call)
	if !waiting || !cancel() || cancel() {
		t.Fatal("cancel of a waiting waiter must report true, then false")
	}
	stop()
	kept.wait(t, "the informer stopped")
	if kept.n.Load() != 1 || dropped.n.Load() != 0 {
		t.Fatalf("runs: kept %d (want 1), cancelled %d (want 0)", kept.n.Load(), dropped.n.Load())
	}
	if _, waiting := inf.WhenProcessed("", "100", mustNotRun(t)); waiting {
		t.Fatal("waiting on a stopped informer")
	}
	if inf.HasProcessed("", "100") {
		t.Fatal("HasProcessed says 100 on a cache at 10")
	}
}

// An informer of several namespaces waits for the namespace asked about,
// on that namespace's watch alone; "" waits for every one, and a namespace
// it does not cache for none.
func TestWhenProcessedPicksTheNamespacesWatch(t *testing.T) {
	lwA, lwB := newScriptLW(list("10")), newScriptLW(list("10"))
	inf := newFed[*corev1.ConfigMap]([]string{"a", "b"}, []reflector.ListerWatcher{lwA, lwB}, []Option{WithName("configmaps/a,b")})
	defer runInformer(t, inf)()
	wA, wB := lwA.nextWatch(t), lwB.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "both namespaces listed", inf.HasSynced)
	testkit.Eventually(t, 10*time.Second, "both at 10", func() bool { return inf.HasProcessed("", "10") })

	inA, inAll, inC := newFired(), newFired(), newFired()
	_, waitA := inf.WhenProcessed("a", "20", inA.call)
	_, waitAll := inf.WhenProcessed("", "20", inAll.call)
	_, waitC := inf.WhenProcessed("c", "20", inC.call)
	if !waitA || !waitAll || waitC || !inf.HasProcessed("c", "20") {
		t.Fatalf("waiting in a %v, in all %v (want both), in c %v (want not: it is not cached)", waitA, waitAll, waitC)
	}
	bookmark(wB, "20")
	testkit.Eventually(t, 10*time.Second, "b at 20", func() bool { return inf.HasProcessed("b", "20") })
	if inf.HasProcessed("a", "20") || inf.HasProcessed("", "20") || inA.n.Load() != 0 || inAll.n.Load() != 0 {
		t.Fatal("b's bookmark counted for a")
	}
	if p := inf.Progress(); p.ResourceVersion != "10" {
		t.Fatalf("Progress is at %q, want the least advanced namespace's 10", p.ResourceVersion)
	}
	wA.Add(cmIn("a", "x", "20"))
	inA.wait(t, "a at 20")
	inAll.wait(t, "both at 20")
	if inA.n.Load() != 1 || inAll.n.Load() != 1 || inC.n.Load() != 0 {
		t.Fatalf("runs: a %d, all %d, c %d; want 1, 1, 0", inA.n.Load(), inAll.n.Load(), inC.n.Load())
	}

	// Waiting on every namespace: a cancel before the last one catches up
	// keeps the callback from ever running.
	dropped := newFired()
	cancel, waiting := inf.WhenProcessed("", "30", dropped.call)
	if !waiting {
		t.Fatal("not waiting for 30")
	}
	bookmark(wA, "30")
	testkit.Eventually(t, 10*time.Second, "a at 30", func() bool { return inf.HasProcessed("a", "30") })
	if !cancel() {
		t.Fatal("cancel with b still behind reported false")
	}
	bookmark(wB, "30")
	testkit.Eventually(t, 10*time.Second, "b at 30", func() bool { return inf.HasProcessed("", "30") })
	if dropped.n.Load() != 0 {
		t.Fatal("a cancelled waiter ran")
	}
}

// A cache of one namespace holds nothing of another, so it never waits
// for one.
func TestOneNamespaceInformerIgnoresOthers(t *testing.T) {
	lw := newScriptLW(list("10"))
	inf := newFed[*corev1.ConfigMap]([]string{"a"}, []reflector.ListerWatcher{lw}, []Option{WithName("configmaps/a")})
	if _, waiting := inf.WhenProcessed("b", "20", mustNotRun(t)); waiting || !inf.HasProcessed("b", "20") {
		t.Fatal("an informer of namespace a waits for namespace b")
	}
	for _, ns := range []string{"a", ""} {
		if cancel, waiting := inf.WhenProcessed(ns, "20", mustNotRun(t)); !waiting || inf.HasProcessed(ns, "20") || !cancel() {
			t.Fatalf("namespace %q: not waiting", ns)
		}
	}
}

// Many waiters, registered and cancelled from several goroutines while
// events and bookmarks flow, around the resourceVersion the cache is at:
// each runs exactly once unless cancelled, never before the cache has
// reached its resourceVersion, and one already reached never waits.
func TestWaitersUnderConcurrentEvents(t *testing.T) {
	const last, goroutines, perGoroutine = 2000, 8, 300
	lw := newScriptLW(list("1"))
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"))
	w, stop := startSynced(t, inf, lw)
	defer stop()

	var runs, cancelled, missed atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for rv := 2; rv <= last; rv++ {
			if rv%3 == 0 {
				bookmark(w, strconv.Itoa(rv))
			} else {
				w.Modify(cmv(fmt.Sprintf("k%d", rv%17), strconv.Itoa(rv)))
			}
		}
	})
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range perGoroutine {
				at, _ := strconv.Atoi(inf.Progress().ResourceVersion)
				rv := strconv.Itoa(min(last, at-5+r.IntN(40)))
				var once atomic.Int32
				cancel, waiting := inf.WhenProcessed("ns", rv, func() {
					if once.Add(1) > 1 {
						t.Errorf("a waiter for %s ran twice", rv)
					}
					if !inf.HasProcessed("ns", rv) {
						t.Errorf("a waiter for %s ran at %s", rv, inf.Progress().ResourceVersion)
					}
					runs.Add(1)
				})
				switch {
				case !waiting:
					if !inf.HasProcessed("ns", rv) {
						t.Errorf("not waiting for %s at %s", rv, inf.Progress().ResourceVersion)
					}
					missed.Add(1)
				case r.IntN(4) == 0 && cancel():
					cancelled.Add(1)
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	testkit.Eventually(t, 10*time.Second, "the cache at the last resourceVersion", func() bool {
		return inf.HasProcessed("ns", strconv.Itoa(last))
	})
	testkit.Eventually(t, 10*time.Second, "every waiter run or cancelled", func() bool {
		return runs.Load()+cancelled.Load()+missed.Load() == goroutines*perGoroutine
	})
	if runs.Load() == 0 || missed.Load() == 0 {
		t.Fatalf("%d waiters ran, %d never waited: the test did not exercise both", runs.Load(), missed.Load())
	}
	t.Logf("%d waiters ran, %d cancelled, %d never waited", runs.Load(), cancelled.Load(), missed.Load())
}

// mustNotRun is a WhenProcessed callback that fails the test if it runs.
func mustNotRun(t *testing.T) func() {
	return func() { t.Error("a callback that must not run ran") }
}

// HasProcessed runs before every reconcile, and a source advances after
// every batch: with nobody waiting, neither allocates.
func TestProgressHotPathsDoNotAllocate(t *testing.T) {
	inf := newFed[*corev1.ConfigMap]([]string{"a", "b"},
		[]reflector.ListerWatcher{newScriptLW(), newScriptLW()}, []Option{WithName("configmaps/a,b")})
	rvs := make([]string, 100)
	for i := range rvs {
		rvs[i] = strconv.Itoa(i + 1)
	}
	src, i := inf.sources[0], 0
	allocs := testing.AllocsPerRun(1000, func() {
		src.progress.advance(rvs[i%len(rvs)])
		i++
		_ = inf.HasProcessed("a", "50") && inf.HasProcessed("", "50") && inf.HasProcessed("c", "50")
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per advance and HasProcessed", allocs)
	}
}

// revision reads digits itself; it must agree with strconv.ParseUint on
// every input, the edges of 64 bits and non-numbers included.
func TestRevisionAgreesWithParseUint(t *testing.T) {
	inputs := []string{"", "0", "7", "007", "123456789", "9999999999999999999", "10000000000000000000",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "-1", "+1", "1_000", " 1",
		"1 ", "12a", "0x10", "opaque-1", "１"}
	for range 1000 {
		inputs = append(inputs, strconv.FormatUint(rand.Uint64()>>rand.IntN(64), 10))
	}
	for _, in := range inputs {
		got, ok := revision(in)
		want, err := strconv.ParseUint(in, 10, 64)
		if ok != (err == nil) || got != want && ok {
			t.Errorf("revision(%q) = %d, %v; ParseUint says %d, %v", in, got, ok, want, err)
		}
	}
}
