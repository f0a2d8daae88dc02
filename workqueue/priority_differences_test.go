package workqueue

import (
	"testing"
	"time"
)

// The tests in this file back the differences from controller-runtime's
// priority queue that the package documentation lists. Each says what
// controller-runtime's queue does instead; several are its own tests,
// with this queue's answers.

// TestPriorityAddDuringProcessingReadyAtDone is controller-runtime's
// "enqueues a locked item" and "returns an item as soon as its unlocked":
// an item added while it is processed is not counted by Len, and becomes
// ready at Done, behind the items that became ready meanwhile.
// controller-runtime's Len counts it, and its Get hands it out right
// after Done, ahead of baz.
func TestPriorityAddDuringProcessingReadyAtDone(t *testing.T) {
	q, _ := newFakePriority(t)
	q.Add("foo")
	foo, _, _ := getP(t, q)
	q.Add("foo")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d with foo added while processing, want 0 until Done", n)
	}
	q.Add("bar")
	if got, _, _ := getP(t, q); got != "bar" {
		t.Fatalf("Get = %s while foo is processing, want bar", got)
	}
	q.Add("baz")
	q.Done(foo)
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d after Done(foo), want 2", n)
	}
	q.Done("bar")
	expectOrder(t, drainP(t, q), "baz", "foo")
}

// TestPriorityGetAfterShutDown is controller-runtime's test for its
// issue #3239: Get hands out the item queued before ShutDown, and only
// then reports shutdown; the add after ShutDown is dropped.
// controller-runtime's Get reports shutdown at once.
func TestPriorityGetAfterShutDown(t *testing.T) {
	q, _ := newFakePriority(t)
	q.Add("baz")
	q.ShutDown()
	q.AddWithOpts(AddOpts{After: time.Second}, "foo")
	item, p, shutdown := q.GetWithPriority()
	if item != "baz" || p != 0 || shutdown {
		t.Fatalf("GetWithPriority = %q, %d, %v after ShutDown; want baz, 0, false", item, p, shutdown)
	}
	q.Done(item)
	if item, _, shutdown = q.GetWithPriority(); item != "" || !shutdown {
		t.Fatalf("GetWithPriority = %q, %v once empty; want shutdown", item, shutdown)
	}
}

// TestPriorityNonPositiveAfter checks that AddWithOpts reads After only
// when it is positive: After: -1ns is a plain add exactly as After: 0 (no
// retry counted, no priority kept, debounced), and with RateLimited the
// limiter's delay applies, where controller-runtime adds the item at
// once. AddAfter, by contrast, is a requeue whatever its delay.
func TestPriorityNonPositiveAfter(t *testing.T) {
	for _, after := range []time.Duration{0, -time.Nanosecond, -time.Hour} {
		t.Run(after.String(), func(t *testing.T) { testNonPositiveAfter(t, after) })
		t.Run(after.String()+"_debounced", func(t *testing.T) {
			const window = 100 * time.Millisecond
			q, clock := newFakePriority(t, WithDebounce(window, time.Second))
			q.AddWithOpts(AddOpts{After: after}, "x")
			if n := q.Len(); n != 0 {
				t.Fatalf("Len = %d right after AddWithOpts(After: %v), want 0: a plain add is debounced", n, after)
			}
			clock.Step(window)
			q.promote()
			expectOrder(t, drainP(t, q), "x")
		})
	}
}

// testNonPositiveAfter is TestPriorityNonPositiveAfter without a
// debounce, for one After.
func testNonPositiveAfter(t *testing.T, after time.Duration) {
	m := newFakePriorityMetrics()
	q, clock := newFakePriority(t, WithName("pq"), WithMetricsProvider(m))
	retries := func() int { _, n := m.last("retries"); return n }
	// handOutLow hands item out at LowPriority, applies add to it while
	// it is processed, and returns the priority of its next hand-out.
	handOutLow := func(item string, add func()) int {
		t.Helper()
		q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, item)
		got, _, _ := getP(t, q)
		add()
		q.Done(got)
		got, p, _ := getP(t, q)
		if got != item {
			t.Fatalf("Get = %s, want %s", got, item)
		}
		q.Done(got)
		return p
	}

	if p := handOutLow("x", func() { q.AddWithOpts(AddOpts{After: after}, "x") }); p != 0 {
		t.Errorf("AddWithOpts(After: %v) requeued x at %d, want 0: a plain add", after, p)
	}
	if n := retries(); n != 0 {
		t.Errorf("AddWithOpts(After: %v) counted %d retries, want none", after, n)
	}

	if p := handOutLow("z", func() { q.AddAfter("z", after) }); p != LowPriority {
		t.Errorf("AddAfter(z, %v) requeued z at %d, want its own %d", after, p, LowPriority)
	}
	if n := retries(); n != 1 {
		t.Errorf("AddAfter(z, %v) counted %d retries, want 1", after, n)
	}

	q.AddWithOpts(AddOpts{After: after, RateLimited: true}, "y")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d: y ready at once, want it after the limiter's delay", n)
	}
	clock.Step(refBase)
	q.promote()
	expectOrder(t, drainP(t, q), "y")
	if n := retries(); n != 2 {
		t.Errorf("%d retries counted after a rate-limited add, want 2", n)
	}
}

// TestPriorityAddOfWaitingItem checks that an Add of an item waiting for
// a delay makes it ready behind the items already ready, as the end of
// its delay would. controller-runtime's queue gives it back the place of
// the add that made it wait, ahead of a.
func TestPriorityAddOfWaitingItem(t *testing.T) {
	q, clock := newFakePriority(t)
	q.AddAfter("x", time.Hour)
	q.Add("a")
	q.Add("x")
	q.Add("b")
	expectOrder(t, drainP(t, q), "a", "x", "b")

	// The same order when the delay ends.
	q.AddAfter("y", time.Second)
	q.Add("c")
	clock.Step(time.Second)
	q.promote()
	q.Add("d")
	expectOrder(t, drainP(t, q), "c", "y", "d")
}

// TestPriorityNumRequeuesAtOnce checks that AddRateLimited and
// AddWithOpts with RateLimited record the failure before they return.
// controller-runtime's queue asks its limiter later, on a goroutine of
// its own.
func TestPriorityNumRequeuesAtOnce(t *testing.T) {
	q, _ := newFakePriority(t)
	q.AddRateLimited("x")
	if n := q.NumRequeues("x"); n != 1 {
		t.Fatalf("NumRequeues = %d right after AddRateLimited, want 1", n)
	}
	q.AddWithOpts(AddOpts{RateLimited: true}, "x", "y")
	if n, m := q.NumRequeues("x"), q.NumRequeues("y"); n != 2 || m != 1 {
		t.Fatalf("NumRequeues = %d, %d right after AddWithOpts(RateLimited), want 2, 1", n, m)
	}
	q.Forget("x")
	if n := q.NumRequeues("x"); n != 0 {
		t.Fatalf("NumRequeues = %d after Forget, want 0", n)
	}
}
