package workqueue_test

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/workqueue"
)

// A controller's worker loop: take a key, reconcile it, and either forget
// its failures or retry it later.
func Example() {
	q := workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string](),
		workqueue.WithName("deployments"))
	defer q.ShutDown()

	// Event handlers add keys; adding one that is already queued is free.
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web")

	failedOnce := map[string]bool{}
	reconcile := func(key string) error {
		if key == "default/web" && !failedOnce[key] {
			failedOnce[key] = true
			return errors.New("conflict")
		}
		return nil
	}
	for range 3 {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		if err := reconcile(key); err != nil {
			fmt.Printf("%s: %v, retry %d\n", key, err, q.NumRequeues(key)+1)
			q.AddRateLimited(key) // back in 5ms, then 10ms, 20ms, ...
		} else {
			fmt.Printf("%s: done\n", key)
			q.Forget(key)
		}
		q.Done(key)
	}
	// Output:
	// default/web: conflict, retry 1
	// default/db: done
	// default/web: done
}

// An item added while a worker processes it is handed out again, once,
// after Done; never to a second worker at the same time.
func ExampleQueue() {
	q := workqueue.New[string]()
	defer q.ShutDown()

	q.Add("a")
	item, _ := q.Get()
	q.Add("a")
	q.Add("a")
	fmt.Println("ready while a is processing:", q.Len())
	q.Done(item)
	fmt.Println("ready after Done:", q.Len())
	// Output:
	// ready while a is processing: 0
	// ready after Done: 1
}

// Tests drive delays with a fake clock instead of sleeping.
func ExampleDelayingQueue_AddAfter() {
	clock := clocktesting.NewFakeClock(time.Now())
	q := workqueue.NewDelaying[string](workqueue.WithClock(clock))
	defer q.ShutDown()

	q.AddAfter("resync", time.Minute)
	q.AddAfter("retry", time.Second)
	q.AddAfter("retry", 10*time.Second) // the earlier deadline stays
	clock.Step(time.Minute)

	for range 2 {
		item, _ := q.Get()
		fmt.Println(item)
		q.Done(item)
	}
	// Output:
	// retry
	// resync
}

func ExampleNewExponentialLimiter() {
	l := workqueue.NewExponentialLimiter[string](5*time.Millisecond, 30*time.Millisecond)
	var delays []time.Duration
	for range 5 {
		delays = append(delays, l.When("default/web"))
	}
	fmt.Println(delays)
	l.Forget("default/web") // it succeeded
	fmt.Println(l.When("default/web"))
	// Output:
	// [5ms 10ms 20ms 30ms 30ms]
	// 5ms
}

// Two queues of different item types share one retry budget: a
// rate.Limiter of one retry per second with bursts of 2. A fake clock
// keeps the example's output fixed.
func ExampleNewSharedBucketLimiter() {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	budget := rate.NewLimiter(1, 2)
	names := workqueue.NewSharedBucketLimiter[string](budget, workqueue.WithClock(clock))
	numbers := workqueue.NewSharedBucketLimiter[int](budget, workqueue.WithClock(clock))

	fmt.Println(names.When("default/web"), numbers.When(7), names.When("default/db"))
	clock.Step(2 * time.Second)       // one second repays the borrowed token, one refills a token
	budget.SetLimitAt(clock.Now(), 2) // double the budget for both
	fmt.Println(numbers.When(8), numbers.When(9))
	// Output:
	// 0s 0s 1s
	// 0s 500ms
}
