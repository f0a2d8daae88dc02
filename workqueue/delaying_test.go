package workqueue

import (
	"slices"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

func newFakeDelaying(t *testing.T, opts ...Option) (*DelayingQueue[string], func(time.Duration)) {
	t.Helper()
	clock := newFakeClock()
	q := NewDelaying[string](append([]Option{WithClock(clock)}, opts...)...)
	t.Cleanup(q.ShutDown)
	step := func(d time.Duration) {
		clock.Step(d)
		q.promote() // what the timer goroutine does, but synchronously
	}
	return q, step
}

func TestDelayingItemsBecomeReadyInDeadlineOrder(t *testing.T) {
	q, step := newFakeDelaying(t)
	q.AddAfter("c", 3*time.Second)
	q.AddAfter("a", time.Second)
	q.AddAfter("b2", 2*time.Second)
	q.AddAfter("b1", 2*time.Second) // same deadline: after b2, added first
	step(999 * time.Millisecond)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d before the first deadline, want 0", got)
	}
	step(time.Millisecond)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d at the first deadline, want 1", got)
	}
	step(5 * time.Second)
	var got []string
	for range 4 {
		got = append(got, mustGet(t, &q.Queue))
	}
	if want := []string{"a", "b2", "b1", "c"}; !slices.Equal(got, want) {
		t.Fatalf("ready order %v, want %v", got, want)
	}
}

func TestDelayingTimerGoroutineFiresWithoutHelp(t *testing.T) {
	clock := newFakeClock()
	q := NewDelaying[string](WithClock(clock))
	defer q.ShutDown()
	q.AddAfter("late", 10*time.Second)
	testkit.Eventually(t, 10*time.Second, "the timer to be set", clock.HasWaiters)
	q.AddAfter("early", time.Second) // must move the timer up
	clock.Step(time.Second)
	if got := mustGet(t, &q.Queue); got != "early" {
		t.Fatalf("Get = %q, want early", got)
	}
	clock.Step(9 * time.Second)
	if got := mustGet(t, &q.Queue); got != "late" {
		t.Fatalf("Get = %q, want late", got)
	}
}

func TestDelayingRealClock(t *testing.T) {
	q := NewDelaying[string]()
	defer q.ShutDown()
	start := time.Now()
	q.AddAfter("a", 5*time.Millisecond)
	if got := mustGet(t, &q.Queue); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
	if waited := time.Since(start); waited < 5*time.Millisecond {
		t.Fatalf("item ready after %v, before its 5ms delay", waited)
	}
}

func TestDelayingEarlierDeadlineWins(t *testing.T) {
	q, step := newFakeDelaying(t)
	q.AddAfter("a", 5*time.Second)
	q.AddAfter("a", time.Second)    // earlier: replaces
	q.AddAfter("a", 3*time.Second)  // later: ignored
	q.AddAfter("b", 2*time.Second)  // b first...
	q.AddAfter("b", 10*time.Second) // ...and later ignored
	step(time.Second)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len at 1s = %d, want 1 (a)", got)
	}
	q.Done(mustGet(t, &q.Queue))
	step(time.Second)
	q.Done(mustGet(t, &q.Queue)) // b at 2s
	step(10 * time.Second)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d: a replaced or ignored deadline fired later", got)
	}
}

// An item is processed once, whichever of Add and AddAfter comes first:
// the direct add makes it ready now and the delay is dropped (client-go
// would process it again when the old deadline passes).
func TestDelayingAddAndAddAfterProcessOnce(t *testing.T) {
	for name, adds := range map[string]func(q *DelayingQueue[string]){
		"AddAfter then Add": func(q *DelayingQueue[string]) { q.AddAfter("a", time.Second); q.Add("a") },
		"Add then AddAfter": func(q *DelayingQueue[string]) { q.Add("a"); q.AddAfter("a", time.Second) },
	} {
		t.Run(name, func(t *testing.T) {
			q, step := newFakeDelaying(t)
			adds(q)
			q.Done(mustGet(t, &q.Queue))
			step(time.Hour)
			if got := q.Len(); got != 0 {
				t.Fatalf("Len = %d after the deadline, want 0", got)
			}
		})
	}
}

func TestDelayingAddAfterDuringProcessing(t *testing.T) {
	q, step := newFakeDelaying(t)
	q.Add("a")
	a := mustGet(t, &q.Queue)
	q.AddAfter("a", time.Second)
	q.Done(a)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d right after Done, want 0", got)
	}
	step(time.Second)
	a = mustGet(t, &q.Queue)

	// A deadline that passes while the item is processing requeues it at Done.
	q.AddAfter("a", time.Second)
	step(time.Second)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d with a still processing, want 0", got)
	}
	q.Done(a)
	if got := mustGet(t, &q.Queue); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
}

func TestDelayingZeroAndNegativeDelaysAddNow(t *testing.T) {
	var logs logLines
	q, _ := newFakeDelaying(t, WithName("pods"), WithLogger(logs.logger()))
	q.AddAfter("zero", 0)
	q.AddAfter("negative", -time.Second)
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
	if logs.find("Negative delay", `"item"="negative"`) == "" {
		t.Fatalf("negative delay not logged; logs: %v", logs.lines)
	}
	if logs.find(`"item"="zero"`) != "" {
		t.Fatal("a zero delay was logged as misuse")
	}
}

func TestDelayingHugeDelaySaturates(t *testing.T) {
	q, step := newFakeDelaying(t)
	step(time.Hour)
	q.AddAfter("never", time.Duration(1<<63-1))
	q.AddAfter("soon", time.Second)
	step(time.Second)
	if got := mustGet(t, &q.Queue); got != "soon" {
		t.Fatalf("Get = %q, want soon: an overflowing deadline came first", got)
	}
}

func TestDelayingAddAfterNeverBlocks(t *testing.T) {
	q, step := newFakeDelaying(t)
	const n = 5000 // client-go's AddAfter blocks beyond 1000 buffered entries
	for i := range n {
		q.AddAfter(string(rune('a'+i%26))+string(rune(i)), time.Duration(i+1)*time.Millisecond)
	}
	step(time.Duration(n) * time.Millisecond)
	if got := q.Len(); got != n {
		t.Fatalf("Len = %d, want %d", got, n)
	}
}

func TestDelayingStaleEntriesStayBounded(t *testing.T) {
	q, _ := newFakeDelaying(t)
	for range 10_000 {
		// A periodic resync delay that events keep pre-empting.
		q.AddAfter("a", time.Hour)
		q.Add("a")
		q.Done(mustGet(t, &q.Queue))
	}
	q.mu.Lock()
	heapLen, slots, live := len(q.waiting.entries), len(q.waiting.slots), q.waiting.live
	q.mu.Unlock()
	if heapLen > 2*live+64 || slots > 2*live+65 {
		t.Fatalf("heap holds %d entries and %d slots for %d waiting items", heapLen, slots, live)
	}
}

func TestDelayingShutDownDropsWaitingItemsAndLaterAdds(t *testing.T) {
	var logs logLines
	q, step := newFakeDelaying(t, WithLogger(logs.logger()))
	q.AddAfter("waiting", time.Second)
	q.ShutDown()
	q.AddAfter("late", time.Second)
	step(time.Hour)
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("a waiting or late item was handed out after shutdown")
	}
	if logs.find("Dropping an item added after shutdown", `"item"="late"`) == "" {
		t.Fatalf("late AddAfter not logged; logs: %v", logs.lines)
	}
}

// AddAfter takes the lock, while Add leaves its item in an inbox for the
// next lock holder; items added either way stay in the order they were
// added, and so do items that become due.
func TestDelayingAddAfterKeepsOrderWithAdd(t *testing.T) {
	q, step := newFakeDelaying(t)
	q.AddAfter("due", time.Second)
	q.Add("a")
	q.AddAfter("b", 0)
	q.Add("c")
	step(time.Second) // "due" becomes ready after the Adds before it
	q.Add("d")
	for _, want := range []string{"a", "b", "c", "due", "d"} {
		if got := mustGet(t, &q.Queue); got != want {
			t.Fatalf("Get = %q, want %q", got, want)
		}
	}
}
