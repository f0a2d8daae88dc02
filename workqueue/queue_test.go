package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

func TestQueueAddMergesQueuedItem(t *testing.T) {
	q := New[string]()
	defer q.ShutDown()
	for _, item := range []string{"a", "b", "a", "c", "b", "a"} {
		q.Add(item)
	}
	if got := q.Len(); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	var got []string
	for range 3 {
		item := mustGet(t, q)
		got = append(got, item)
		q.Done(item)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("handed out %v, want %v (FIFO by first add)", got, want)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len after draining = %d, want 0", got)
	}
}

func TestQueueAddDuringProcessingRequeuesAfterDone(t *testing.T) {
	q := New[string]()
	defer q.ShutDown()
	q.Add("a")
	item := mustGet(t, q)
	q.Add("a")
	q.Add("a")
	q.Add("b")
	// a is being processed: it must not be handed out again yet.
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get = %q while a is processing, want b", got)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d while a is processing, want 0", got)
	}
	q.Done(item)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len after Done = %d, want 1 (a requeued once)", got)
	}
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
	q.Done("a")
	q.Done("b")
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d, want 0: a was added during processing only once", got)
	}
}

func TestQueueNeverHandsAnItemToTwoWorkers(t *testing.T) {
	q := New[string]()
	defer q.ShutDown()
	q.Add("a")
	first := mustGet(t, q)
	second := getAsync(q)
	testkit.Eventually(t, 10*time.Second, "the second worker to sleep in Get", func() bool { return q.sleepers() == 1 })
	q.Add("a") // dirty while processing: still not for the second worker
	select {
	case r := <-second:
		t.Fatalf("second worker got %q while the first was processing it", r.item)
	default:
	}
	q.Done(first) // the second worker is asleep, so Done must wake it
	if r := <-second; r.shutdown || r.item != "a" {
		t.Fatalf("second worker got %+v, want a", r)
	}
}

// Get hands out items from a ring without the lock and records the takes
// later. An Add of an item taken but not yet recorded must treat it as
// being processed: queued again after Done, not merged into a take that
// has already happened.
func TestQueueAddOfAnItemJustTakenFromTheRing(t *testing.T) {
	q := New[string]()
	defer q.ShutDown()
	items := addABAndFillers(q)
	a := mustGet(t, q) // takes the lock and moves the others into the ring
	b := mustGet(t, q) // from the ring, without the lock
	if a != "a" || b != "b" {
		t.Fatalf("Get, Get = %q, %q; want a, b", a, b)
	}
	q.Add("b")
	if got, want := q.Len(), len(items)-2; got != want {
		t.Fatalf("Len = %d after re-adding b while it is processed, want %d (the fillers)", got, want)
	}
	q.Done(a)
	q.Done(b) // b was added while processing: queued again, after the fillers
	for _, want := range items[2:] {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q", got, want)
		}
		q.Done(want)
	}
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d after the fillers, want 1: b was not queued again", got)
	}
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get = %q, want b", got)
	}
}

// A Done called before its item is taken from the ring is misuse, even
// when the Done is applied after the take: it must not end the processing
// of the worker that took the item, or an Add would hand the item to a
// second worker.
func TestQueueDoneBeforeTheTakeFromTheRingIsMisuse(t *testing.T) {
	var logs logLines
	q := New[string](WithName("pods"), WithLogger(logs.logger()))
	defer q.ShutDown()
	items := addABAndFillers(q)
	mustGet(t, q) // a; moves b and the fillers into the ring
	q.Done("b")   // b is in the ring, not taken: misuse
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get = %q, want b", got)
	}
	q.Len() // applies the Done
	if logs.find(errNotProcessing.Error(), `"item"="b"`) == "" {
		t.Errorf("no error logged for the early Done(b); logs: %v", logs.lines)
	}
	q.Add("b") // b is being processed: queued again after Done, not now
	if got, want := q.Len(), len(items)-2; got != want {
		t.Fatalf("Len = %d, want %d: the early Done ended b's processing", got, want)
	}
}

// addABAndFillers adds a, b and enough fillers that taking b from the
// ring leaves it well filled, so that the take does not top the ring up
// (which would record the take at once). It returns the items in order.
func addABAndFillers(q *Queue[string]) []string {
	items := []string{"a", "b"}
	for i := range ringSize / 2 {
		items = append(items, fmt.Sprint("filler-", i))
	}
	for _, item := range items {
		q.Add(item)
	}
	return items
}

func TestQueueGetBlocksUntilAdd(t *testing.T) {
	q := New[int]()
	defer q.ShutDown()
	got := getAsync(q)
	testkit.Eventually(t, 10*time.Second, "the worker to sleep in Get", func() bool { return q.sleepers() == 1 })
	q.Add(7)
	if r := <-got; r.shutdown || r.item != 7 {
		t.Fatalf("Get = %+v, want 7", r)
	}
}

func TestQueueDoneForItemNotProcessingIsLoggedAndIgnored(t *testing.T) {
	var logs logLines
	q := New[string](WithName("pods"), WithLogger(logs.logger()))
	defer q.ShutDown()
	q.Add("queued")
	q.Done("queued")  // queued, not processing
	q.Done("unknown") // never added
	item := mustGet(t, q)
	q.Done(item)
	q.Done(item) // twice

	for _, item := range []string{"queued", "unknown"} {
		if logs.find(errNotProcessing.Error(), `"queue"="pods"`, `"item"="`+item+`"`) == "" {
			t.Errorf("no error logged for Done(%q); logs: %v", item, logs.lines)
		}
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d, want 0: misuse must not requeue", got)
	}
	q.Add("queued")
	if got := mustGet(t, q); got != "queued" {
		t.Fatalf("queue unusable after misuse: Get = %q", got)
	}
}

func TestQueueAddAfterShutdownIsDropped(t *testing.T) {
	var logs logLines
	q := New[string](WithName("pods"), WithLogger(logs.logger()))
	q.ShutDown()
	q.Add("late")
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d, want 0", got)
	}
	if logs.find("Dropping an item added after shutdown", `"item"="late"`) == "" {
		t.Fatalf("drop not logged at V(1); logs: %v", logs.lines)
	}
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false after ShutDown")
	}
}

func TestQueueShutDownHandsOutQueuedItemsThenReportsShutdown(t *testing.T) {
	q := New[string]()
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	q.ShutDown() // idempotent
	for _, want := range []string{"a", "b"} {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q", got, want)
		}
		q.Done(want)
	}
	if item, shutdown := q.Get(); !shutdown || item != "" {
		t.Fatalf("Get = %q, %v; want zero value and shutdown", item, shutdown)
	}
}

func TestQueueShutDownWakesSleepingWorkers(t *testing.T) {
	q := New[string]()
	var workers []<-chan getResult[string]
	for range 3 {
		workers = append(workers, getAsync(q))
	}
	testkit.Eventually(t, 10*time.Second, "three workers asleep", func() bool { return q.sleepers() == 3 })
	q.ShutDown()
	for _, w := range workers {
		if r := <-w; !r.shutdown {
			t.Fatalf("worker got %+v, want shutdown", r)
		}
	}
}

func TestQueueShutDownWithDrainWaitsForInFlightAndRequeuedItems(t *testing.T) {
	q := New[string]()
	q.Add("a")
	q.Add("b")
	a := mustGet(t, q)
	q.Add("a") // dirty: must be processed again before the drain ends

	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	testkit.Eventually(t, 10*time.Second, "shutdown to start", q.ShuttingDown)
	assertOpen := func(step string) {
		t.Helper()
		select {
		case <-drained:
			t.Fatalf("ShutDownWithDrain returned %s", step)
		default:
		}
	}
	assertOpen("while a was processing")
	q.Add("c") // after shutdown: dropped, so the drain must not wait for it
	q.Done(a)
	assertOpen("with a requeued and b queued")
	var got []string
	for range 2 {
		item := mustGet(t, q)
		got = append(got, item)
		assertOpen("with an item in flight")
		q.Done(item)
	}
	<-drained
	if want := []string{"b", "a"}; !slices.Equal(got, want) {
		t.Fatalf("drained %v, want %v", got, want)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after drain did not report shutdown")
	}
}

func TestQueueShutDownEndsAWaitingDrain(t *testing.T) {
	q := New[string]()
	q.Add("a")
	item := mustGet(t, q)
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	testkit.Eventually(t, 10*time.Second, "shutdown to start", q.ShuttingDown)
	q.ShutDown()
	<-drained
	q.Done(item)
}

// Adds and Dones wait in lock-free inboxes until a lock holder applies
// them; those that find an inbox full apply it themselves. Either way
// items are handed out in the order they were added.
func TestQueueFullInboxesApplyDirectly(t *testing.T) {
	q := New[int]()
	defer q.ShutDown()
	const n = 3 * inboxSize
	for i := range n {
		q.Add(i) // most overflow the inbox
	}
	if got := q.Len(); got != n {
		t.Fatalf("Len = %d, want %d", got, n)
	}
	items := make([]int, 0, n)
	for i := range n {
		item := mustGet(t, q)
		if item != i {
			t.Fatalf("Get = %d, want %d", item, i)
		}
		items = append(items, item)
	}
	for _, item := range items {
		q.Add(item) // dirty: each Done must requeue it
	}
	for _, item := range items {
		q.Done(item) // most overflow the inbox
	}
	if got := q.Len(); got != n {
		t.Fatalf("Len = %d, want %d requeued items", got, n)
	}
	for i := range n {
		if got := mustGet(t, q); got != i {
			t.Fatalf("Get = %d, want %d", got, i)
		}
		q.Done(i)
	}
}

func TestQueueStructKeys(t *testing.T) {
	type key struct{ namespace, name string }
	q := New[key]()
	defer q.ShutDown()
	q.Add(key{"default", "a"})
	q.Add(key{"default", "a"})
	q.Add(key{"kube-system", "a"})
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
}

// getAfterHook runs hook where a worker in Get is about to announce its
// sleep and expects Get to return want. The item the worker's last look
// finds is counted as waking it; the worker must take that back, or the
// queue would think a worker is on its way when none is, and later
// wake-ups would be lost.
func getAfterHook(t *testing.T, q *Queue[string], want string, hook func()) {
	t.Helper()
	testHookBeforeSleep = func() {
		testHookBeforeSleep = nil
		hook()
	}
	defer func() { testHookBeforeSleep = nil }()
	got := getAsync(q)
	select {
	case r := <-got:
		if r.shutdown || r.item != want {
			t.Fatalf("Get = %+v, want %s", r, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the worker slept through %s becoming ready", want)
	}
	q.mu.Lock()
	asleep, waking := q.asleep.Load(), q.waking
	q.mu.Unlock()
	if asleep != 0 || waking != 0 {
		t.Fatalf("after Get: %d workers counted asleep and %d waking, want 0 and 0", asleep, waking)
	}
	q.Done(want)
	// A worker that sleeps now must be woken by the next Add.
	got = getAsync(q)
	testkit.Eventually(t, 10*time.Second, "the worker to sleep", func() bool { return q.sleepers() == 1 })
	q.Add("b")
	if r := <-got; r.shutdown || r.item != "b" {
		t.Fatalf("Get = %+v, want b", r)
	}
}

// An Add that lands after Get last applied the inboxes but before the
// worker announced its sleep must still be seen: the worker looks again.
func TestQueueAddJustBeforeAWorkerSleeps(t *testing.T) {
	q := New[string]()
	defer q.ShutDown()
	getAfterHook(t, q, "a", func() {
		q.Add("a") // lock-free: no worker has announced a sleep yet
	})
}

// An Add that passed the shutdown check just before ShutDown and left its
// item in the inbox is still handed out by Get, before Get reports
// shutdown.
func TestQueueAddRacingShutDownIsHandedOut(t *testing.T) {
	q := New[string]()
	if !q.adds.push("late", hashItem(q.seed, "late")) { // what Add does before it returns
		t.Fatal("push into an empty inbox failed")
	}
	q.ShutDown()
	if got := mustGet(t, q); got != "late" {
		t.Fatalf("Get = %q, want late", got)
	}
	q.Done("late")
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get did not report shutdown")
	}
}

// An Add that claimed its inbox cell before a draining shutdown and fills
// it in after is waited for: a worker does not get shutdown, and the
// drain does not return, before the item is handed out and Done. Once the
// drain has returned, no Add gets into the inbox.
func TestQueueDrainWaitsForAnAddClaimedBeforeIt(t *testing.T) {
	t.Run("new item, worker asleep", func(t *testing.T) {
		q := New[string]()
		fill, drained := claimThenDrain(t, q)
		worker := getAsync(q)
		testkit.Eventually(t, 10*time.Second, "the worker to sleep in Get", func() bool { return q.sleepers() == 1 })
		assertNotDrained(t, drained)
		fill("late")
		if r := <-worker; r.shutdown || r.item != "late" {
			t.Fatalf("Get = %+v, want late", r)
		}
		assertNotDrained(t, drained)
		q.Done("late")
		<-drained
		assertClosedAfterDrain(t, q)
	})
	t.Run("item being processed", func(t *testing.T) {
		q := New[string]()
		q.Add("late")
		item := mustGet(t, q)
		fill, drained := claimThenDrain(t, q)
		fill("late") // marks it to be processed again
		q.Done(item)
		if got := mustGet(t, q); got != "late" {
			t.Fatalf("Get = %q, want late", got)
		}
		assertNotDrained(t, drained)
		q.Done("late")
		<-drained
		assertClosedAfterDrain(t, q)
	})
}

// claimThenDrain claims an inbox cell as Add's push does, starts
// ShutDownWithDrain, and returns what fills the cell in and finishes the
// Add, and a channel closed when the drain returns.
func claimThenDrain(t *testing.T, q *Queue[string]) (fill func(string), drained <-chan struct{}) {
	t.Helper()
	pos := q.adds.enq.Load()
	if !q.adds.enq.CompareAndSwap(pos, pos+1) {
		t.Fatal("claim failed")
	}
	done := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(done)
	}()
	testkit.Eventually(t, 10*time.Second, "shutdown to start", q.ShuttingDown)
	return func(item string) {
		c := &q.adds.cells[pos&(inboxSize-1)]
		c.entry, c.hash = item, hashItem(q.seed, item)
		c.seq.Store(pos + 1)
		q.wakeAppliers()
	}, done
}

func assertNotDrained(t *testing.T, drained <-chan struct{}) {
	t.Helper()
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned with work left")
	default:
	}
}

func assertClosedAfterDrain(t *testing.T, q *Queue[string]) {
	t.Helper()
	if q.adds.push("after", hashItem(q.seed, "after")) {
		t.Fatal("the inbox took an Add after the drain")
	}
	q.Add("after")
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d after the drain, want 0", got)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get did not report shutdown")
	}
}
