package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

func TestPriorityMetricsDepthByPriority(t *testing.T) {
	clock := newFakeClock()
	m := newFakePriorityMetrics()
	q := NewPriority[string](nil, WithClock(clock), WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	expect := func(low, normal int) {
		t.Helper()
		if got := [2]int{m.depth(LowPriority), m.depth(0)}; got != [2]int{low, normal} {
			t.Fatalf("workqueue_depth{priority=-100,0} = %v, want [%d %d]", got, low, normal)
		}
	}
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "a", "b")
	q.Add("c")
	expect(2, 1)
	q.Add("a") // raised
	expect(1, 2)
	item, _ := q.Get()
	expect(1, 1)
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, item) // counted while processing, as client-go does
	expect(2, 1)
	q.Done(item)
	q.AddAfter("d", time.Second) // not counted while it waits
	expect(2, 1)
	m.expect(t, "retries", 1, 1)
	if slices.Contains(m.created, "depth/pq") {
		t.Errorf("the unlabelled depth was created too: %v", m.created)
	}
}

func TestPriorityMetricsPlainProviderCountsTotalDepth(t *testing.T) {
	m := newFakeMetrics()
	q := NewPriority[string](nil, WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(LowPriority)}, "a", "b")
	q.Add("c")
	m.expect(t, "depth", 3, 3)
	m.expect(t, "adds", 1, 3)
	item, _ := q.Get()
	m.expect(t, "depth", 2, 4)
	q.Done(item)
	if _, n := m.last("work"); n != 1 {
		t.Errorf("%d work durations recorded, want 1", n)
	}
}

func TestPriorityMetricsLabelAtMost25Priorities(t *testing.T) {
	m := newFakePriorityMetrics()
	q := NewPriority[int](nil, WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	for p := range 30 {
		q.AddWithOpts(AddOpts{Priority: prio(p)}, p)
	}
	labels := 0
	for _, c := range m.created {
		if len(c) > 5 && c[:6] == "depth{" {
			labels++
		}
	}
	if labels != maxPriorityLabels+1 {
		t.Errorf("%d depth labels created, want %d and %q", labels, maxPriorityLabels, otherPriorities)
	}
	if v, _ := m.last("depth{priority=" + otherPriorities + "}"); v != 5 {
		t.Errorf("%s depth = %v, want 5", otherPriorities, v)
	}
	for range 30 {
		item, _ := q.Get()
		q.Done(item)
	}
	if v, _ := m.last("depth{priority=" + otherPriorities + "}"); v != 0 {
		t.Errorf("%s depth = %v once drained, want 0", otherPriorities, v)
	}
}

// TestPriorityMetricsFlows checks the flow gauges: created only once a
// flow is used, refreshed with the unfinished-work gauges.
func TestPriorityMetricsFlows(t *testing.T) {
	clock := newFakeClock()
	m := newFakePriorityMetrics()
	q := NewPriority[string](nil, WithClock(clock), WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	q.Add("x")
	refreshed := func() bool { _, n := m.last("unfinished"); return n > 0 }
	testkit.Eventually(t, 10*time.Second, "the unfinished-work ticker", func() bool {
		clock.Step(unfinishedWorkPeriod)
		return refreshed()
	})
	if slices.Contains(m.created, "flows/pq") {
		t.Fatal("flow gauges created before any flow was used")
	}
	for i := range 5 {
		q.AddWithOpts(AddOpts{Flow: "big"}, fmt.Sprint("big/", i))
	}
	q.AddWithOpts(AddOpts{Flow: "small"}, "small/0")
	testkit.Eventually(t, 10*time.Second, "the flow gauges", func() bool {
		clock.Step(unfinishedWorkPeriod)
		flows, _ := m.last("flows")
		largest, _ := m.last("largest_flow")
		return flows == 3 && largest == 5 // the default flow (x), big and small
	})
}

// TestPriorityMetricsQueueDuration checks workqueue_queue_duration_seconds
// of a PriorityQueue, which keeps no per-item map for it: from the add
// to the hand-out, for an item added while it is processed too (not from
// its Done, when it becomes ready), and from the end of a delay.
func TestPriorityMetricsQueueDuration(t *testing.T) {
	clock := newFakeClock()
	m := newFakePriorityMetrics()
	q := NewPriority[string](nil, WithClock(clock), WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	for i := range 100 {
		q.Add(fmt.Sprint("filler-", i))
	}
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "a")
	clock.Step(2 * time.Second)
	a, _ := q.Get()
	m.expect(t, "latency", 2, 1)
	clock.Step(time.Second)
	q.AddWithOpts(AddOpts{Priority: prio(1)}, a) // at 3s
	clock.Step(4 * time.Second)
	q.Done(a) // ready at 7s
	clock.Step(time.Second)
	if got, _, _ := getP(t, q); got != a {
		t.Fatalf("Get = %q, want %q", got, a)
	}
	m.expect(t, "latency", 5, 2) // since the add at 3s
	q.Done(a)
	q.AddWithOpts(AddOpts{Priority: prio(1), After: time.Second}, "b")
	clock.Step(time.Second)
	q.promote()
	clock.Step(2 * time.Second)
	if got, _, _ := getP(t, q); got != "b" {
		t.Fatalf("Get = %q, want b", got)
	}
	m.expect(t, "latency", 2, 3)
	q.mu.Lock()
	defer q.mu.Unlock()
	if n, w := len(q.metrics.addedAt), len(q.metrics.addedWhileProcessing); n != 0 || w != 0 {
		t.Errorf("%d items in addedAt, %d in addedWhileProcessing, with 100 queued; want none", n, w)
	}
}

// TestPriorityMetricsRetries checks that workqueue_retries_total counts
// every requeue whatever its delay, as client-go's queue and this
// package's DelayingQueue count every AddAfter: each AddAfter and
// AddRateLimited call, and each item of an AddWithOpts with RateLimited
// or a positive After; not a plain add, nor an After of zero or less.
// controller-runtime's queue counts only the adds whose delay is above
// zero: none here but the AddAfter of a second and the positive After.
func TestPriorityMetricsRetries(t *testing.T) {
	m := newFakePriorityMetrics()
	zero := NewExponentialLimiter[string](0, 0) // every delay is zero
	q := NewPriority(zero, WithClock(newFakeClock()), WithName("pq"), WithMetricsProvider(m))
	defer q.ShutDown()
	retries := func() int { _, n := m.last("retries"); return n }
	for _, step := range []struct {
		call string
		add  func()
		want int
	}{
		{"Add", func() { q.Add("a") }, 0},
		{"AddWithOpts(After: 0)", func() { q.AddWithOpts(AddOpts{}, "a") }, 0},
		{"AddWithOpts(After: -1ns)", func() { q.AddWithOpts(AddOpts{After: -1}, "a") }, 0},
		{"AddAfter(0)", func() { q.AddAfter("a", 0) }, 1},
		{"AddAfter(-1ns)", func() { q.AddAfter("a", -1) }, 2},
		{"AddAfter(1s)", func() { q.AddAfter("b", time.Second) }, 3},
		{"AddRateLimited, no delay", func() { q.AddRateLimited("a") }, 4},
		{"AddWithOpts(RateLimited), two items", func() { q.AddWithOpts(AddOpts{RateLimited: true}, "a", "c") }, 6},
		{"AddWithOpts(After: 1s)", func() { q.AddWithOpts(AddOpts{After: time.Second}, "d") }, 7},
	} {
		step.add()
		if n := retries(); n != step.want {
			t.Errorf("after %s: %d retries counted, want %d", step.call, n, step.want)
		}
	}
}
