package workqueue

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// saturate runs controller-runtime #3496's scenario on q for run, on a
// fake clock: one worker whose every reconcile takes service, while
// normal-priority adds of new keys arrive twice per reconcile, faster
// than the worker drains them. The initial list, lowItems keys at
// LowPriority, is queued at the start. It returns when each of those was
// handed out (since the start), in the order they were.
func saturate(t *testing.T, q *PriorityQueue[string], step func(time.Duration), lowItems int, service, run time.Duration) []time.Duration {
	t.Helper()
	for i := range lowItems {
		q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, fmt.Sprint("initial/", i))
	}
	var lowAt []time.Duration
	normal := 0
	for now := time.Duration(0); now < run; now += service {
		for range 2 {
			q.Add(fmt.Sprint("normal/", normal))
			normal++
		}
		item, _, _ := getP(t, q)
		if strings.HasPrefix(item, "initial/") {
			if want := fmt.Sprint("initial/", len(lowAt)); item != want {
				t.Fatalf("%s handed out before %s", item, want)
			}
			lowAt = append(lowAt, now)
		}
		step(service)
		q.Done(item)
	}
	if q.Len() < int(run/service)/2 {
		t.Fatalf("only %d items queued at the end: the worker was not saturated", q.Len())
	}
	return lowAt
}

// TestPriorityAgingBoundUnderSaturation proves the aging bound in
// controller-runtime #3496's scenario (see saturate): 50 initial-list
// items at LowPriority, one worker taking 100ms per item, two
// normal-priority adds per 100ms, for three minutes.
//
// With the default MaxWait of a minute, no initial-list item is handed
// out before it has waited a minute (priority holds until then), and
// item i of them is handed out by MaxWait + 2(i+1) x 100ms: the minute,
// then the i initial-list items overdue before it and itself, each after
// a turn of the items not overdue, since overdue items and the others
// take turns. All 50 are handed out by 70s, although the normal backlog
// grows without bound.
//
// With MaxWait at a day, which is controller-runtime's strict priority
// for this run, none of them is handed out: the scenario does starve
// them without aging.
func TestPriorityAgingBoundUnderSaturation(t *testing.T) {
	const lowItems, service, run = 50, 100 * time.Millisecond, 3 * time.Minute
	q, clock := newFakePriority(t)
	lowAt := saturate(t, q, clock.Step, lowItems, service, run)
	if len(lowAt) != lowItems {
		t.Fatalf("%d of %d initial-list items handed out in %v", len(lowAt), lowItems, run)
	}
	for i, at := range lowAt {
		if bound := DefaultMaxWait + time.Duration(2*(i+1))*service; at < DefaultMaxWait || at > bound {
			t.Errorf("initial/%d handed out at %v, want in [%v, %v]", i, at, DefaultMaxWait, bound)
		}
	}
	t.Logf("initial-list items handed out from %v to %v (MaxWait %v)", lowAt[0], lowAt[len(lowAt)-1], DefaultMaxWait)

	strict, clock := newFakePriority(t, WithMaxWait(24*time.Hour))
	if lowAt := saturate(t, strict, clock.Step, lowItems, service, run); len(lowAt) != 0 {
		t.Fatalf("without aging, %d initial-list items handed out; the scenario does not saturate", len(lowAt))
	}
}

// TestPriorityAgingKeepsOrderOfOverdueItems checks the bound's other
// half: once overdue, items go in the order they became ready whatever
// their priority, taking turns with the items not overdue (highest
// priority first), and a raise does not move an overdue item.
func TestPriorityAgingKeepsOrderOfOverdueItems(t *testing.T) {
	q, clock := newFakePriority(t, WithMaxWait(time.Second))
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "low")
	clock.Step(100 * time.Millisecond)
	q.Add("normal")
	clock.Step(100 * time.Millisecond)
	q.AddWithOpts(AddOpts{Priority: prio(10)}, "high")
	clock.Step(time.Second) // all three overdue
	q.Add("fresh")
	q.AddWithOpts(AddOpts{Priority: prio(100)}, "fresh-high")
	item, _, _ := getP(t, q) // promotes the three
	q.Done(item)
	q.AddWithOpts(AddOpts{Priority: prio(100)}, "normal") // overdue: keeps its place
	expectOrder(t, append([]string{item}, drainP(t, q)...), "low", "fresh-high", "normal", "fresh", "high")
}

// TestPriorityFairnessBound proves the fairness bound: flow A queues
// 10,000 items and flow B one; B's item is handed out within N = 2 Gets
// (one per flow with items at its priority), however far A's backlog has
// drained when B's item comes. Without flows it waits for all of A's.
func TestPriorityFairnessBound(t *testing.T) {
	const backlog, n = 10_000, 2
	for _, drained := range []int{0, 1, 5_000, backlog - 2} {
		t.Run(fmt.Sprint("drained=", drained), func(t *testing.T) {
			q, _ := newFakePriority(t)
			for i := range backlog {
				q.AddWithOpts(AddOpts{Flow: "a"}, fmt.Sprint("a/", i))
			}
			for range drained {
				item, _, _ := getP(t, q)
				q.Done(item)
			}
			q.AddWithOpts(AddOpts{Flow: "b"}, "b/only")
			if gets := getsUntil(t, q, "b/only"); gets > n {
				t.Fatalf("b/only handed out at Get %d, want within %d", gets, n)
			}
		})
	}
	t.Run("no flows", func(t *testing.T) {
		q, _ := newFakePriority(t)
		for i := range backlog {
			q.Add(fmt.Sprint("a/", i))
		}
		q.Add("b/only")
		if gets := getsUntil(t, q, "b/only"); gets != backlog+1 {
			t.Fatalf("b/only handed out at Get %d, want %d: first in, first out", gets, backlog+1)
		}
	})
	t.Run("ten busy flows", func(t *testing.T) {
		const flows = 10
		q, _ := newFakePriority(t)
		for i := range backlog {
			q.AddWithOpts(AddOpts{Flow: fmt.Sprint("busy-", i%flows)}, fmt.Sprint("busy/", i))
		}
		q.AddWithOpts(AddOpts{Flow: "b"}, "b/only")
		if gets := getsUntil(t, q, "b/only"); gets > flows+1 {
			t.Fatalf("b/only handed out at Get %d, want within %d", gets, flows+1)
		}
	})
}

// getsUntil calls Get (and Done) until item is handed out and returns
// how many Gets that took.
func getsUntil(t *testing.T, q *PriorityQueue[string], item string) int {
	t.Helper()
	for gets := 1; ; gets++ {
		got, _, _ := getP(t, q)
		q.Done(got)
		if got == item {
			return gets
		}
	}
}

// TestPriorityFairnessComposesWithPriorities checks that flows take
// turns within a priority, that a higher priority still goes first
// whatever the flows, and that overdue items take turns by flow too: an
// item that becomes overdue behind a flow's 10,000 overdue items is
// handed out within 3 Gets (a turn of each flow's overdue items, and one
// of the items not overdue between them), not after them.
func TestPriorityFairnessComposesWithPriorities(t *testing.T) {
	q, clock := newFakePriority(t, WithMaxWait(time.Minute))
	for i := range 3 {
		q.AddWithOpts(AddOpts{Flow: "a", Priority: prio(LowPriority)}, fmt.Sprint("a-low/", i))
		q.AddWithOpts(AddOpts{Flow: "a"}, fmt.Sprint("a/", i))
	}
	q.AddWithOpts(AddOpts{Flow: "b", Priority: prio(LowPriority)}, "b-low")
	q.AddWithOpts(AddOpts{Flow: "b"}, "b")
	q.AddWithOpts(AddOpts{Flow: "c"}, "c")
	expectOrder(t, drainP(t, q), "a/0", "b", "c", "a/1", "a/2", "a-low/0", "b-low", "a-low/1", "a-low/2")

	for i := range 10_000 {
		q.AddWithOpts(AddOpts{Flow: "a", Priority: prio(LowPriority)}, fmt.Sprint("a-low/", i))
	}
	clock.Step(time.Second)
	q.AddWithOpts(AddOpts{Flow: "b", Priority: prio(LowPriority)}, "b-low")
	clock.Step(time.Minute) // all overdue, b-low last
	q.AddWithOpts(AddOpts{Flow: "c", Priority: prio(10)}, "c-high")
	if gets := getsUntil(t, q, "b-low"); gets > 3 {
		t.Fatalf("overdue b-low handed out at Get %d, want within 3", gets)
	}
}

// TestPriorityDebounce checks WithDebounce(100ms, 1s): a burst of adds
// is handed out once, 100ms after its last add, or 1s after its first
// if it does not pause; an earlier AddAfter deadline wins, a later one
// is cut short; and an add while the item is processed is debounced too.
func TestPriorityDebounce(t *testing.T) {
	const window, maxDelay = 100 * time.Millisecond, time.Second
	q, clock := newFakePriority(t, WithDebounce(window, maxDelay))
	step := func(d time.Duration) { clock.Step(d); q.promote() }
	expectLen := func(want int) {
		t.Helper()
		if got := q.Len(); got != want {
			t.Fatalf("Len = %d at %v, want %d", got, q.now(), want)
		}
	}

	for range 3 {
		q.Add("x")
		step(50 * time.Millisecond)
	}
	step(49 * time.Millisecond)
	expectLen(0)
	step(time.Millisecond) // 100ms after the last add
	expectOrder(t, drainP(t, q), "x")

	start := q.now()
	var handedOut []time.Duration
	for range 60 { // an add every 50ms for 3s
		q.Add("y")
		step(50 * time.Millisecond)
		if q.Len() > 0 {
			expectOrder(t, drainP(t, q), "y")
			handedOut = append(handedOut, q.now()-start)
		}
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; fmt.Sprint(handedOut) != fmt.Sprint(want) {
		t.Fatalf("a burst without pause handed out at %v, want %v", handedOut, want)
	}

	q.AddAfter("sooner", 10*time.Millisecond)
	q.Add("sooner") // the requeue's deadline is earlier
	q.AddAfter("later", time.Hour)
	q.Add("later") // cut short to the debounce
	step(10 * time.Millisecond)
	expectOrder(t, drainP(t, q), "sooner")
	step(window - 10*time.Millisecond)
	expectOrder(t, drainP(t, q), "later")

	q.AddWithOpts(AddOpts{RateLimited: true}, "z") // requeues are not debounced
	step(refBase)
	item, _, _ := getP(t, q)
	q.Add(item)
	q.Done(item)
	expectLen(0)
	step(window)
	expectOrder(t, drainP(t, q), "z")
}

// TestPriorityFlowsForgottenWhenIdle checks that a queue whose flows come
// and go (10,000 namespaces, one item each) keeps a bounded flow table,
// and does not forget a flow that an item still names.
func TestPriorityFlowsForgottenWhenIdle(t *testing.T) {
	q, _ := newFakePriority(t)
	q.AddWithOpts(AddOpts{Flow: "busy"}, "busy/0")
	held, _, _ := getP(t, q) // processing until the end: its flow is live
	for i := range 10_000 {
		q.AddWithOpts(AddOpts{Flow: fmt.Sprint("ns-", i)}, fmt.Sprint("ns-", i, "/cm"))
		item, _, _ := getP(t, q)
		q.Done(item)
	}
	q.mu.Lock()
	flows, named := len(q.ready.flows.recs), q.ready.flows.ids.n
	busy := q.ready.flows.key(q.items.at(q.items.find(hashItem(q.seed, held), held)).flow)
	q.mu.Unlock()
	if flows > 2*minIdleFlows || named > 2*minIdleFlows {
		t.Errorf("%d flow records, %d named, after 10,000 flows came and went; want at most %d", flows, named, 2*minIdleFlows)
	}
	if busy != "busy" {
		t.Errorf("the processing item's flow is %q, want busy", busy)
	}
	q.AddRateLimited(held) // keeps its flow
	q.Done(held)
}

// TestPriorityChangeNotStuckBehindOverdueBacklog checks why overdue items
// take turns with the others rather than going ahead of them all: after a
// restart over 10,000 objects, once the initial list has waited MaxWait
// it is overdue, and a change made then is still handed out within 2
// Gets, not after the whole initial list.
func TestPriorityChangeNotStuckBehindOverdueBacklog(t *testing.T) {
	q, clock := newFakePriority(t)
	for i := range 10_000 {
		q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, fmt.Sprint("initial/", i))
	}
	clock.Step(DefaultMaxWait)
	q.Add("change")
	if gets := getsUntil(t, q, "change"); gets > 2 {
		t.Fatalf("a change behind 10,000 overdue initial-list items handed out at Get %d, want within 2", gets)
	}
}
