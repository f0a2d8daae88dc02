package reflector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
)

var gone = apierrors.NewResourceExpired("too old resource version: 5 (10)")

type harness struct {
	r     *Reflector[CM]
	store *recStore
	clock *clocktesting.FakeClock
	stop  func()
}

func start(t *testing.T, lw ListerWatcher, opts ...Option) *harness {
	t.Helper()
	return startWith(t, lw, func(s *recStore) Store[CM] { return s }, opts...)
}

// startWith starts a reflector into the store wrap makes of the harness's
// recording store.
func startWith(t *testing.T, lw ListerWatcher, wrap func(*recStore) Store[CM], opts ...Option) *harness {
	t.Helper()
	h := &harness{store: newRecStore(), clock: clocktesting.NewFakeClock(time.Now())}
	r, err := New[CM](lw, wrap(h.store), append([]Option{WithClock(h.clock), WithWatchTimeout(time.Minute, 2*time.Minute)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Start(ctx); close(done) }()
	h.stop = func() { cancel(); <-done }
	t.Cleanup(h.stop)
	return h
}

// step advances the fake clock once the reflector waits on it.
func (h *harness) step(t *testing.T, d time.Duration) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the reflector to wait on the clock", h.clock.HasWaiters)
	h.clock.Step(d)
}

func isList(t *testing.T, c call, rv string, match metav1.ResourceVersionMatch) {
	t.Helper()
	if c.watch || c.opts.ResourceVersion != rv || c.opts.ResourceVersionMatch != match {
		t.Fatalf("want list rv=%q match=%q, got watch=%v %+v", rv, match, c.watch, c.opts)
	}
}

func isWatch(t *testing.T, c call, rv string) {
	t.Helper()
	if !c.watch || c.opts.ResourceVersion != rv || !c.opts.AllowWatchBookmarks || c.opts.SendInitialEvents != nil {
		t.Fatalf("want watch from rv=%q with bookmarks, got watch=%v %+v", rv, c.watch, c.opts)
	}
	if s := c.opts.TimeoutSeconds; s == nil || *s < 60 || *s > 120 {
		t.Fatalf("watch timeout %v outside the configured 60..120s", s)
	}
}

func TestListThenWatchFromTheListsVersion(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", "", cm("a", "8"), cm("b", "9")), nil)
	w := lw.onWatch(nil)
	h := start(t, lw)
	c := lw.next(t)
	isList(t, c, "", "") // consistent first list: no stale read
	if c.opts.Limit != 500 {
		t.Fatalf("first list not paged: limit %d", c.opts.Limit)
	}
	h.store.expect(t, "replace 10 a,b")
	isWatch(t, lw.next(t), "10")
	w.Add(cm("c", "11"))
	w.Modify(cm("a", "12"))
	w.Delete(cm("b", "13"))
	w.Action(watch.Bookmark, cm("", "14"))
	for _, want := range []string{"add c 11", "update a 12", "delete b 13", "bookmark 14"} {
		h.store.expect(t, want)
	}
	// The store hears of the bookmark just before the reflector records it.
	testkit.Eventually(t, 10*time.Second, "the bookmark's version recorded", func() error {
		if rv := h.r.LastSyncResourceVersion(); rv != "14" {
			return fmt.Errorf("health: rv=%q, want 14", rv)
		}
		return nil
	})
	if !h.r.HasInitialSync() || h.r.LastEventTime().IsZero() {
		t.Fatalf("health: initialSync=%v lastEvent=%v", h.r.HasInitialSync(), h.r.LastEventTime())
	}
}

// LastEventTime reads the WithEventClock clock, not the one of timeouts
// and backoff, and moves as each list, event and bookmark is handed to the
// store, before the store has it; an object the reflector skips moves it
// not.
func TestLastEventTimeIsByTheEventClock(t *testing.T) {
	events := clocktesting.NewFakePassiveClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	r, err := New[CM](newFakeLW(), newRecStore(), WithEventClock(events))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.LastEventTime(); !got.IsZero() {
		t.Fatalf("LastEventTime before anything arrived = %v, want zero", got)
	}
	lw := newFakeLW().onList(cmList("10", ""), nil)
	w := lw.onWatch(nil)
	errs := make(chan error, 10)
	h := start(t, lw, WithEventClock(events), WithWatchErrorHandler(func(err error) { errs <- err }))
	at := func(what string) {
		t.Helper()
		if got := h.r.LastEventTime(); !got.Equal(events.Now()) {
			t.Fatalf("after %s: LastEventTime %v, want the event clock's %v", what, got, events.Now())
		}
	}
	lw.next(t)
	h.store.expect(t, "replace 10 ")
	at("the list")
	isWatch(t, lw.next(t), "10")
	events.SetTime(events.Now().Add(time.Second))
	w.Modify(cm("a", "11"))
	h.store.expect(t, "update a 11")
	at("an event")
	events.SetTime(events.Now().Add(time.Second))
	w.Action(watch.Bookmark, cm("", "12"))
	h.store.expect(t, "bookmark 12")
	at("a bookmark")

	last := events.Now()
	events.SetTime(last.Add(time.Second))
	w.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "13"}})
	select {
	case <-errs:
	case <-time.After(10 * time.Second):
		t.Fatal("wrong-typed object not reported")
	}
	if got := h.r.LastEventTime(); !got.Equal(last) {
		t.Fatalf("a skipped object moved LastEventTime to %v, want %v", got, last)
	}
}

func TestTimeoutRewatchesFromLastVersionWithoutRelisting(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", ""), nil)
	w := lw.onWatch(nil)
	h := start(t, lw)
	lw.next(t)
	isWatch(t, lw.next(t), "10")
	w.Action(watch.Bookmark, cm("", "20")) // a quiet watch's progress comes from bookmarks
	h.store.expect(t, "replace 10 ")
	h.store.expect(t, "bookmark 20")
	w.Stop() // the server's timeout
	isWatch(t, lw.next(t), "20")
}

func TestGoneOnWatchRelistsNotOlderThanLastSeen(t *testing.T) {
	lw := newFakeLW().
		onList(cmList("10", "", cm("a", "8"), cm("b", "9")), nil).
		onList(cmList("30", "", cm("a", "25")), nil) // b was deleted while we were away
	w := lw.onWatch(nil)
	lw.onWatch(gone) // re-watching from 15 is no longer possible
	h := start(t, lw)
	lw.next(t)
	lw.next(t)
	w.Modify(cm("a", "15"))
	h.store.expect(t, "replace 10 a,b")
	h.store.expect(t, "update a 15")
	w.Stop()
	isWatch(t, lw.next(t), "15")
	isList(t, lw.next(t), "15", metav1.ResourceVersionMatchNotOlderThan)
	h.store.expect(t, "replace 30 a") // b is absent: the FIFO turns that into a tombstone delete
	isWatch(t, lw.next(t), "30")
}

func TestGoneOnRelistFallsBackToConsistentList(t *testing.T) {
	lw := newFakeLW().
		onList(cmList("10", ""), nil).
		onList(nil, gone).
		onList(cmList("40", ""), nil)
	w := lw.onWatch(nil)
	h := start(t, lw)
	lw.next(t)
	lw.next(t)
	w.Error(&gone.ErrStatus) // 410 as a watch event
	isList(t, lw.next(t), "10", metav1.ResourceVersionMatchNotOlderThan)
	isList(t, lw.next(t), "", "")
	h.store.expect(t, "replace 10 ")
	h.store.expect(t, "replace 40 ")
}

func TestConnectionRefusedBacksOff(t *testing.T) {
	refused := &netError{syscall.ECONNREFUSED}
	lw := newFakeLW().onList(nil, refused).onList(nil, refused).onList(cmList("10", ""), nil)
	var reported atomic.Int32
	h := start(t, lw, WithWatchErrorHandler(func(error) { reported.Add(1) }))
	lw.next(t)
	lw.none(t) // no retry until the backoff passes
	h.step(t, 1200*time.Millisecond)
	lw.next(t)
	lw.none(t)
	h.step(t, 2400*time.Millisecond) // doubled
	isList(t, lw.next(t), "", "")
	if n := reported.Load(); n != 2 {
		t.Fatalf("error handler called %d times, want 2", n)
	}
}

type netError struct{ errno syscall.Errno }

func (e *netError) Error() string { return "dial tcp 127.0.0.1:6443: " + e.errno.Error() }
func (e *netError) Unwrap() error { return e.errno }

func TestWatchClosingAtOnceDoesNotSpin(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", ""), nil)
	w := lw.onWatch(nil)
	h := start(t, lw)
	lw.next(t)
	lw.next(t)
	w.Stop() // closed with no event, immediately: the server is going away
	lw.none(t)
	h.step(t, 1200*time.Millisecond)
	isWatch(t, lw.next(t), "10")
}

func TestDeadWatchIsRestarted(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", ""), nil)
	lw.onWatch(nil) // never says anything
	h := start(t, lw, WithDeadWatchTimeout(3*time.Minute))
	lw.next(t)
	lw.next(t)
	h.step(t, 3*time.Minute)
	isWatch(t, lw.next(t), "10") // a new watch, no relist
}

func TestPagingRestartsUnpagedWhenContinueExpires(t *testing.T) {
	lw := newFakeLW().
		onList(cmList("10", "token-1", cm("a", "8")), nil).
		onList(nil, gone).
		onList(cmList("12", "", cm("a", "8"), cm("b", "11")), nil)
	h := start(t, lw, WithPageSize(1))
	isList(t, lw.next(t), "", "")
	c := lw.next(t)
	if c.opts.Continue != "token-1" || c.opts.ResourceVersion != "" || c.opts.ResourceVersionMatch != "" {
		t.Fatalf("second page must carry only the token: %+v", c.opts)
	}
	c = lw.next(t)
	if c.opts.Continue != "" || c.opts.Limit != 0 {
		t.Fatalf("after an expired token, want one unpaged list: %+v", c.opts)
	}
	h.store.expect(t, "replace 12 a,b")
}

func TestWatchListStreamsThenKeepsWatching(t *testing.T) {
	lw := streamingLW{newFakeLW()}
	w := lw.onWatch(nil)
	h := start(t, lw)
	c := lw.next(t)
	if !c.watch || c.opts.SendInitialEvents == nil || !*c.opts.SendInitialEvents ||
		c.opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || c.opts.ResourceVersion != "" {
		t.Fatalf("want a WatchList request, got %+v", c.opts)
	}
	w.Add(cm("a", "5"))
	w.Add(cm("b", "6"))
	w.Action(watch.Bookmark, bookmark("9", true).Object)
	h.store.expect(t, "replace 9 a,b")
	w.Modify(cm("a", "10")) // the same watch goes on
	h.store.expect(t, "update a 10")
	lw.none(t)
}

// A streamed relist at the last seen resourceVersion whose watch later ends
// normally (the server's timeout) is followed by a plain watch, not a panic
// or another relist.
func TestStreamedRelistEndingNormallyRewatches(t *testing.T) {
	lw := streamingLW{newFakeLW()}
	w1 := lw.onWatch(nil)
	w2 := lw.onWatch(nil)
	h := start(t, lw)
	lw.next(t)
	w1.Add(cm("a", "5"))
	w1.Action(watch.Bookmark, bookmark("9", true).Object)
	h.store.expect(t, "replace 9 a")
	w1.Error(&gone.ErrStatus)
	c := lw.next(t)
	if !c.watch || c.opts.SendInitialEvents == nil || c.opts.ResourceVersion != "9" {
		t.Fatalf("want a streamed relist from 9, got %+v", c.opts)
	}
	w2.Add(cm("b", "12"))
	w2.Action(watch.Bookmark, bookmark("12", true).Object)
	h.store.expect(t, "replace 12 b")
	w2.Modify(cm("b", "13"))
	h.store.expect(t, "update b 13")
	w2.Stop() // the server's timeout
	isWatch(t, lw.next(t), "13")
}

func TestWatchListFallsBackAndRemembers(t *testing.T) {
	for name, script := range map[string]func(*watch.FakeWatcher, *harness, *testing.T){
		"rejected": nil,
		"server ignores sendInitialEvents": func(w *watch.FakeWatcher, _ *harness, _ *testing.T) {
			w.Add(cm("a", "5"))
			w.Action(watch.Bookmark, bookmark("9", false).Object)
		},
		"silent stream": func(_ *watch.FakeWatcher, h *harness, t *testing.T) { h.step(t, 30*time.Second) },
	} {
		t.Run(name, func(t *testing.T) {
			lw := &streamingLW{newFakeLW()}
			var w1 *watch.FakeWatcher
			if script == nil {
				lw.onWatch(apierrors.NewInvalid(schema.GroupKind{Kind: "ListOptions"}, "", nil))
			} else {
				w1 = lw.onWatch(nil)
			}
			lw.onList(cmList("10", "", cm("a", "5")), nil).onList(cmList("20", ""), nil)
			w2 := lw.onWatch(nil)
			lw.onWatch(gone)
			h := start(t, lw)
			lw.next(t) // the streaming attempt
			if script != nil {
				script(w1, h, t)
			}
			isList(t, lw.next(t), "", "")
			h.store.expect(t, "replace 10 a")
			isWatch(t, lw.next(t), "10")
			w2.Add(cm("x", "11"))
			h.store.expect(t, "add x 11")
			w2.Stop() // timeout
			isWatch(t, lw.next(t), "11")
			// The 410 relists by LIST: streaming is not tried again.
			isList(t, lw.next(t), "11", metav1.ResourceVersionMatchNotOlderThan)
		})
	}
}

func TestTransformRunsOnceOnEveryPath(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	count := func(o CM) (CM, error) {
		mu.Lock()
		seen[o.Name]++
		mu.Unlock()
		o.Labels = map[string]string{"transformed": "yes"}
		return o, nil
	}
	lw := streamingLW{newFakeLW()}
	w := lw.onWatch(nil)
	h := start(t, lw, WithTransform(count))
	lw.next(t)
	w.Add(cm("streamed", "1"))
	w.Action(watch.Bookmark, bookmark("2", true).Object)
	h.store.expect(t, "replace 2 streamed")
	w.Add(cm("watched", "3"))
	h.store.expect(t, "add watched 3")
	h.stop()
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s transformed %d times", name, n)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("transformed %v", seen)
	}
}

func TestWrongTypeIsReportedNotPanicked(t *testing.T) {
	pods := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p"}}}}
	lw := newFakeLW().onList(pods, nil)
	errs := make(chan error, 10)
	h := start(t, lw, WithWatchErrorHandler(func(err error) { errs <- err }))
	lw.next(t)
	h.store.expect(t, "replace 3 ")
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "*v1.Pod") || !strings.Contains(err.Error(), `"p"`) {
			t.Fatalf("error does not name the object: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wrong-typed object not reported")
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	lw, s := newFakeLW(), newRecStore()
	for _, tc := range []struct {
		opt  Option
		want string
	}{
		{WithWatchTimeout(time.Minute, time.Second), "WithWatchTimeout"},
		{WithPageSize(-1), "WithPageSize"},
		{WithTransform(func(p *corev1.Pod) (*corev1.Pod, error) { return p, nil }), "WithTransform"},
	} {
		if _, err := New[CM](lw, s, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
}

func TestStopsAtEveryBlockingPoint(t *testing.T) {
	t.Run("in list", func(t *testing.T) {
		lw := &ctxLW{fakeLW: newFakeLW(), entered: make(chan struct{}, 1)}
		h := start(t, lw)
		<-lw.entered
		h.stop() // goleak in TestMain checks nothing is left
	})
	t.Run("in watch", func(t *testing.T) {
		lw := newFakeLW().onList(cmList("1", ""), nil)
		h := start(t, lw)
		lw.next(t)
		lw.next(t)
		h.stop()
	})
	t.Run("in backoff", func(t *testing.T) {
		lw := newFakeLW().onList(nil, errors.New("boom"))
		h := start(t, lw)
		lw.next(t)
		h.step(t, 0) // waiting on the backoff timer
		h.stop()
	})
}

// ctxLW's List blocks until the request's context ends.
type ctxLW struct {
	*fakeLW
	entered chan struct{}
}

func (l *ctxLW) List(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	l.entered <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}
