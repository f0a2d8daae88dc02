package workqueue_test

import (
	"fmt"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/workqueue"
)

// After a restart, the objects of the initial list are queued at
// LowPriority; a change that comes in meanwhile goes ahead of them, and a
// requeue keeps the priority its item had.
func ExamplePriorityQueue() {
	q := workqueue.NewPriority(workqueue.DefaultControllerRateLimiter[string]())
	defer q.ShutDown()

	q.AddWithOpts(workqueue.AddOpts{Priority: ptr.To(workqueue.LowPriority)}, "default/a", "default/b")
	q.Add("default/changed") // an event: priority 0

	for range 3 {
		key, priority, _ := q.GetWithPriority()
		fmt.Println(key, priority)
		q.Done(key)
	}
	// Output:
	// default/changed 0
	// default/a -100
	// default/b -100
}

// With a flow per namespace, a namespace that queues many keys delays
// another namespace's key by one turn, not by its whole backlog.
func ExampleAddOpts_flow() {
	q := workqueue.NewPriority(workqueue.DefaultControllerRateLimiter[string]())
	defer q.ShutDown()

	for i := range 1000 {
		q.AddWithOpts(workqueue.AddOpts{Flow: "busy"}, fmt.Sprintf("busy/cm-%d", i))
	}
	q.AddWithOpts(workqueue.AddOpts{Flow: "quiet"}, "quiet/cm")

	for range 3 {
		key, _ := q.Get()
		fmt.Println(key)
		q.Done(key)
	}
	// Output:
	// busy/cm-0
	// quiet/cm
	// busy/cm-1
}

// The caller defines the reasons, one bit each; the adds that merge into
// one queued key hand out all their reasons with it.
func ExamplePriorityQueue_GetWithReasons() {
	const (
		created workqueue.Reasons = 1 << iota
		ownedChanged
		resync
	)
	q := workqueue.NewPriority(workqueue.DefaultControllerRateLimiter[string]())
	defer q.ShutDown()

	q.AddWithOpts(workqueue.AddOpts{Reasons: created}, "default/web")
	q.AddWithOpts(workqueue.AddOpts{Reasons: ownedChanged}, "default/web")

	key, reasons, _ := q.GetWithReasons()
	fmt.Println(key, reasons.Has(created), reasons.Has(ownedChanged), reasons.Has(resync))
	q.Done(key)
	// Output:
	// default/web true true false
}

// An item that has waited MaxWait is overdue and takes turns with the
// items of every priority, so a stream of higher-priority work cannot
// hold it back for ever.
func ExampleWithMaxWait() {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.NewPriority(workqueue.DefaultControllerRateLimiter[string](),
		workqueue.WithClock(clock), workqueue.WithMaxWait(30*time.Second))
	defer q.ShutDown()

	q.AddWithOpts(workqueue.AddOpts{Priority: ptr.To(workqueue.LowPriority)}, "initial/a")
	for i := 0; ; i++ {
		q.Add(fmt.Sprintf("busy/%d", i)) // always something of priority 0 ready
		key, _ := q.Get()
		if key == "initial/a" {
			fmt.Println("initial/a after", i, "items")
			break
		}
		clock.Step(time.Second) // each reconcile takes a second
		q.Done(key)
	}
	// Output:
	// initial/a after 30 items
}

// A burst of changes to one key is reconciled once, after the burst, but
// no later than the maximum delay after its first change.
func ExampleWithDebounce() {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.NewPriority(workqueue.DefaultControllerRateLimiter[string](),
		workqueue.WithClock(clock), workqueue.WithDebounce(time.Second, 5*time.Second))
	defer q.ShutDown()

	for range 3 {
		q.Add("default/web")
		clock.Step(500 * time.Millisecond)
	}
	fmt.Println("ready during the burst:", q.Len())
	clock.Step(time.Second) // a second after the last change
	key, _ := q.Get()
	fmt.Println(key)
	q.Done(key)
	// Output:
	// ready during the burst: 0
	// default/web
}
