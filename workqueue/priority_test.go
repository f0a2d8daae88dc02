package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
)

func prio(p int) *int { return &p }

// newFakePriority returns a priority queue on a fake clock, with the
// limiter the model test uses.
func newFakePriority(t *testing.T, opts ...Option) (*PriorityQueue[string], *clocktesting.FakeClock) {
	t.Helper()
	clock := newFakeClock()
	q := NewPriority(NewExponentialLimiter[string](refBase, refMax), append([]Option{WithClock(clock)}, opts...)...)
	t.Cleanup(q.ShutDown)
	return q, clock
}

// getP returns the next item with its priority and reasons, failing the
// test if the queue is shut down and empty.
func getP(t *testing.T, q *PriorityQueue[string]) (string, int, Reasons) {
	t.Helper()
	item, p, r, shutdown := q.get()
	if shutdown {
		t.Fatal("Get reported shutdown")
	}
	return item, p, r
}

// drainP hands out and finishes every ready item, returning them in order.
func drainP(t *testing.T, q *PriorityQueue[string]) []string {
	t.Helper()
	var got []string
	for q.Len() > 0 {
		item, _, _ := getP(t, q)
		got = append(got, item)
		q.Done(item)
	}
	return got
}

func expectOrder(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("handed out %v, want %v", got, want)
	}
}

func TestPriorityHigherFirstThenFIFO(t *testing.T) {
	q, _ := newFakePriority(t)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "low1", "low2")
	q.Add("a")
	q.AddWithOpts(AddOpts{Priority: prio(10)}, "high")
	q.Add("b")
	q.AddWithOpts(AddOpts{Priority: prio(0)}, "c")
	expectOrder(t, drainP(t, q), "high", "a", "b", "c", "low1", "low2")
}

func TestPriorityAddTwiceHighestWins(t *testing.T) {
	q, _ := newFakePriority(t)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "x", "y")
	q.Add("a")
	q.Add("b")
	q.AddWithOpts(AddOpts{Priority: prio(0)}, "x")           // raised: behind a and b, ahead of y
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "a") // a lower priority changes nothing
	q.Add("x")                                               // nor does the same one
	expectOrder(t, drainP(t, q), "a", "b", "x", "y")
}

func TestPriorityRequeueKeepsPriority(t *testing.T) {
	q, clock := newFakePriority(t)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "x")
	item, p, _ := getP(t, q)
	if p != LowPriority {
		t.Fatalf("handed out at %d, want %d", p, LowPriority)
	}
	q.AddRateLimited(item) // while processing, as a controller does
	q.Done(item)
	q.Add("normal")
	clock.Step(refMax)
	q.promote()
	expectOrder(t, drainP(t, q), "normal", "x") // x kept its low priority

	// AddAfter keeps it too; an explicit priority replaces it.
	q.AddWithOpts(AddOpts{Priority: prio(7)}, "y")
	item, _, _ = getP(t, q)
	q.AddAfter(item, time.Second)
	q.Done(item)
	clock.Step(time.Second)
	q.promote()
	if item, p, _ = getP(t, q); item != "y" || p != 7 {
		t.Fatalf("Get = %s at %d after AddAfter, want y at 7", item, p)
	}
	q.AddWithOpts(AddOpts{RateLimited: true, Priority: prio(LowPriority)}, item)
	q.Done(item)
	clock.Step(refMax)
	q.promote()
	if item, p, _ = getP(t, q); item != "y" || p != LowPriority {
		t.Fatalf("Get = %s at %d, want y at the priority the requeue gave", item, p)
	}
	q.Done(item)

	// A requeue of a queued item keeps its priority too: it does not
	// raise a LowPriority item to 0, as controller-runtime's queue does.
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "v")
	q.AddAfter("v", time.Second)
	q.AddRateLimited("v")
	q.AddWithOpts(AddOpts{After: time.Second}, "v")
	q.Add("u")
	expectOrder(t, drainP(t, q), "u", "v")
	q.Forget("v")

	// A requeue of an item the queue does not hold, and a plain Add of
	// one it holds only while processing it, are at 0.
	q.AddAfter("z", time.Millisecond)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "w")
	item, _, _ = getP(t, q)
	q.Add(item)
	q.Done(item)
	clock.Step(time.Millisecond)
	q.promote()
	for range 2 {
		item, p, _ := getP(t, q)
		if p != 0 {
			t.Errorf("%s handed out at %d, want 0", item, p)
		}
		q.Done(item)
	}
}

func TestPriorityAddDuringProcessing(t *testing.T) {
	q, _ := newFakePriority(t)
	q.Add("x")
	item, _, _ := getP(t, q)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority), Reasons: 1}, "x")
	q.AddWithOpts(AddOpts{Priority: prio(5), Reasons: 2}, "x")
	q.Add("y")
	if got, _, _ := getP(t, q); got != "y" {
		t.Fatalf("Get = %s while x is processing, want y", got)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d while x is processing, want 0", q.Len())
	}
	q.Add("z")
	q.Done(item)
	// x is ready again, once, at the highest priority of those adds.
	item, p, r := getP(t, q)
	if item != "x" || p != 5 || r != 3 {
		t.Fatalf("Get = %s at %d with reasons %b, want x at 5 with 11", item, p, r)
	}
	q.Done(item)
	q.Done("y")
	expectOrder(t, drainP(t, q), "z")
}

func TestPriorityReasons(t *testing.T) {
	const event, resync, requeue Reasons = 1 << 0, 1 << 1, 1 << 2
	q, clock := newFakePriority(t)
	q.AddWithOpts(AddOpts{Reasons: event}, "x")
	q.AddWithOpts(AddOpts{Reasons: resync}, "x") // merges into the queued x
	item, reasons, _ := q.GetWithReasons()
	if item != "x" || reasons != event|resync || !reasons.Has(event|resync) || reasons.Has(requeue) {
		t.Fatalf("GetWithReasons = %s, %b; want x, %b", item, reasons, event|resync)
	}
	// Adds while x is processing, delayed ones too, come with its next
	// hand-out, and only those.
	q.AddWithOpts(AddOpts{After: time.Second, Reasons: requeue}, "x")
	q.AddWithOpts(AddOpts{Reasons: event}, "x")
	q.Done(item)
	clock.Step(time.Second)
	q.promote()
	if item, reasons, _ = q.GetWithReasons(); reasons != requeue|event {
		t.Fatalf("GetWithReasons = %s, %b; want x, %b", item, reasons, requeue|event)
	}
	q.Done(item)
	q.Add("x")
	if item, reasons, _ = q.GetWithReasons(); reasons != 0 {
		t.Fatalf("reasons %b after a plain Add, want none: cleared at hand-out", reasons)
	}
	q.Done(item)
}

func TestPriorityGetWithPriorityAndReasons(t *testing.T) {
	const event, resync Reasons = 1 << 0, 1 << 1
	q, _ := newFakePriority(t)
	low, high := -10, 5
	q.AddWithOpts(AddOpts{Priority: &low, Reasons: resync}, "a")
	q.AddWithOpts(AddOpts{Priority: &high, Reasons: event}, "b")
	q.AddWithOpts(AddOpts{Reasons: event}, "a") // raises a to 0
	for _, want := range []struct {
		item string
		prio int
		why  Reasons
	}{{"b", high, event}, {"a", 0, resync | event}} {
		item, prio, why, shutdown := q.GetWithPriorityAndReasons()
		if shutdown || item != want.item || prio != want.prio || why != want.why {
			t.Fatalf("GetWithPriorityAndReasons = %s, %d, %b, %v; want %s, %d, %b", item, prio, why, shutdown, want.item, want.prio, want.why)
		}
		q.Done(item)
	}
}

func TestPriorityDelays(t *testing.T) {
	q, clock := newFakePriority(t)
	q.AddAfter("later", 2*time.Second)
	q.AddAfter("sooner", time.Second)
	q.AddAfter("sooner", 3*time.Second) // the earlier deadline stays
	q.AddAfter("now", 0)
	q.AddAfter("waiting", time.Hour)
	q.Add("waiting") // ready now; the delay is dropped
	expectOrder(t, drainP(t, q), "now", "waiting")
	clock.Step(time.Second)
	q.promote()
	expectOrder(t, drainP(t, q), "sooner")
	clock.Step(time.Hour)
	q.promote()
	expectOrder(t, drainP(t, q), "later") // waiting came once only
}

// TestPriorityTimerGoroutine checks that the timer goroutine, not a test
// helper, makes delayed items ready, and that an earlier deadline moves
// its timer up.
func TestPriorityTimerGoroutine(t *testing.T) {
	q, clock := newFakePriority(t)
	q.AddAfter("late", 10*time.Second)
	testkit.Eventually(t, 10*time.Second, "the timer to be set", clock.HasWaiters)
	q.AddAfter("early", time.Second)
	clock.Step(time.Second)
	if item, _ := q.Get(); item != "early" {
		t.Fatalf("Get = %q, want early", item)
	}
	clock.Step(9 * time.Second)
	if item, _ := q.Get(); item != "late" {
		t.Fatalf("Get = %q, want late", item)
	}
}

func TestPriorityShutDown(t *testing.T) {
	var logs logLines
	q, _ := newFakePriority(t, WithLogger(logs.logger()))
	q.Add("a")
	q.Add("b")
	q.AddAfter("delayed", time.Second)
	item, _, _ := getP(t, q)
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	testkit.Eventually(t, 10*time.Second, "the shutdown to begin", q.ShuttingDown)
	q.Add("late")
	if logs.find("Dropping an item added after shutdown", "late") == "" {
		t.Error("an add after shutdown was not logged")
	}
	second, _, _ := getP(t, q) // queued before the shutdown: still handed out
	q.Done(second)
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned while an item was processing")
	case <-time.After(10 * time.Millisecond):
	}
	q.Done(item)
	<-drained
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after the drain did not report shutdown")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := q.items.index.n; n != 0 {
		t.Errorf("%d items left in the table after the drain", n)
	}
}

func TestPriorityDoneForItemNotProcessing(t *testing.T) {
	var logs logLines
	q, _ := newFakePriority(t, WithLogger(logs.logger()))
	q.Add("a")
	q.Done("a")
	if logs.find(errNotProcessing.Error(), `"item"="a"`) == "" {
		t.Fatalf("Done for a queued item not logged; logs: %v", logs.lines)
	}
	expectOrder(t, drainP(t, q), "a")
}

func TestPriorityOptionsMisuse(t *testing.T) {
	var logs logLines
	q, _ := newFakePriority(t, WithLogger(logs.logger()), WithMaxWait(0), WithDebounce(time.Second, time.Millisecond))
	if logs.find("WithMaxWait(0s)", errNotPositive.Error()) == "" {
		t.Errorf("WithMaxWait(0) not logged; logs: %v", logs.lines)
	}
	if logs.find("WithDebounce(1s, 1ms)", errDebounce.Error()) == "" {
		t.Errorf("WithDebounce with maxDelay < window not logged; logs: %v", logs.lines)
	}
	if q.maxWait != DefaultMaxWait || q.window != 0 {
		t.Errorf("maxWait %v, window %v; want the default and no debounce", q.maxWait, q.window)
	}
	plain := NewRateLimiting[string](nil, WithLogger(logs.logger()), WithMaxWait(time.Second), WithName("plain"))
	defer plain.ShutDown()
	if logs.find("WithMaxWait", errPriorityOnly.Error(), "plain") == "" {
		t.Errorf("WithMaxWait given to NewRateLimiting not logged; logs: %v", logs.lines)
	}
	NewPriority[string](nil, WithLogger(logs.logger())).ShutDown()
	if logs.find(errNilLimiter.Error()) == "" {
		t.Errorf("a nil limiter not logged; logs: %v", logs.lines)
	}
}

// TestPriorityNoAllocations checks that a warm queue allocates nothing
// per item: not for priorities, flows, reasons or delays.
func TestPriorityNoAllocations(t *testing.T) {
	q, clock := newFakePriority(t)
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = fmt.Sprint("ns/item-", i)
	}
	opts := []AddOpts{
		{},
		{Priority: prio(LowPriority), Reasons: 1},
		{Flow: "ns-a", Reasons: 2},
		{Flow: "ns-b", Priority: prio(5)},
		{After: time.Millisecond, Flow: "ns-c"},
	}
	round := func() {
		for i, key := range keys {
			q.AddWithOpts(opts[i%len(opts)], key)
		}
		for i, key := range keys[:8] {
			p := i % 3 // a pointer to a local must not make it escape
			q.AddWithOpts(AddOpts{Priority: &p, Flow: "ns-d", Reasons: 4}, key)
		}
		q.AddRateLimited(keys[0])
		clock.Step(time.Second)
		q.promote()
		for q.Len() > 0 {
			item, _, _, _ := q.get()
			q.Done(item)
		}
		q.Forget(keys[0])
	}
	round() // warm up
	if n := testing.AllocsPerRun(20, round); n != 0 {
		t.Fatalf("%v allocations per round of %d items", n, len(keys))
	}
}

// TestPriorityGivesMemoryBackAfterABurst checks that the item records and
// their index shrink once a burst is over and the queue keeps working
// after.
func TestPriorityGivesMemoryBackAfterABurst(t *testing.T) {
	q, _ := newFakePriority(t)
	for i := range 4096 {
		q.AddWithOpts(AddOpts{Priority: prio(i % 3), Flow: fmt.Sprint("ns-", i%5)}, fmt.Sprint("burst/", i))
	}
	if got := len(drainP(t, q)); got != 4096 {
		t.Fatalf("%d items handed out, want 4096", got)
	}
	for i := range 10 * shrinkAfter {
		q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "low")
		q.Add(fmt.Sprint("small/", i))
		expectOrder(t, drainP(t, q), fmt.Sprint("small/", i), "low")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if c := cap(q.items.recs); c >= 4096 {
		t.Errorf("the queue keeps room for %d records after the burst", c)
	}
	if n := len(q.items.index.slots); n >= 4096 {
		t.Errorf("the queue keeps an index of %d slots after the burst", n)
	}
}
