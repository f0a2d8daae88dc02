// Package workqueue holds the keys a controller still has to reconcile.
//
// A controller cares only about the final state of an object, so the queue
// is not a plain FIFO. A key added a thousand times while it waits is
// handed out once. A key is never handed to two workers at the same time:
// one added while a worker processes it is marked dirty and handed out
// again, once, after the worker calls Done. Distinct keys are handed out
// in the order they became ready. The method names are client-go's, with
// type parameters instead of interface{}:
//
//	q := workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string](),
//		workqueue.WithName("deployments"), workqueue.WithLogger(logger))
//	defer q.ShutDown()
//	for {
//		key, shutdown := q.Get()
//		if shutdown {
//			return
//		}
//		if err := reconcile(key); err != nil {
//			q.AddRateLimited(key) // retry later, backing off per key
//		} else {
//			q.Forget(key) // reset its backoff
//		}
//		q.Done(key)
//	}
//
// # Queues
//
// Queue is the plain queue: Add, Get, Done, Len, ShutDown, ShutDownWithDrain
// and ShuttingDown. DelayingQueue adds AddAfter; RateLimitingQueue adds
// AddRateLimited, Forget and NumRequeues on top of a RateLimiter. Each
// embeds the one before it.
//
// Delays are served by one goroutine and one timer over a heap of
// deadlines, and AddAfter never blocks. If an item already waits, the
// earlier deadline wins. A plain Add of an item that waits makes it ready
// at once and cancels its delay, so the item is not processed a second
// time when the old deadline passes (client-go's delaying queue keeps the
// entry and reconciles twice).
//
// ShutDown drops later adds and items still waiting for a delay; workers
// get the items already queued and then shutdown from Get.
// ShutDownWithDrain also waits until those items are processed and Done.
// An Add that races with a shutdown is either dropped or handed out
// before Get reports shutdown (and Done before a drain returns).
//
// # Rate limiters
//
// A RateLimiter says how long a failed item waits: ExponentialLimiter
// (per item, base*2^failures up to a cap, exact at any failure count),
// FastSlowLimiter (a few quick retries, then slow ones), BucketLimiter (one
// token bucket for all items) and MaxOfLimiter (the longest of several).
// A BucketLimiter is a golang.org/x/time/rate Limiter that each retry
// reserves a token from, as in client-go; NewSharedBucketLimiter draws
// from a *rate.Limiter the caller shares or reconfigures.
// DefaultControllerRateLimiter is what controllers expect: exponential
// from 5ms to 1000s, max-of a bucket of 10 retries per second with bursts
// of 100. Like client-go's, the max-of takes a bucket token on every
// retry, even when an item's backoff is longer; see MaxOfLimiter for why.
//
// # Misuse
//
// Misuse never panics and never corrupts the queue; it is logged through
// the logr.Logger given with WithLogger, and the call does nothing else.
// That keeps client-go's method signatures (steady's queues satisfy
// client-go's TypedRateLimitingInterface) and keeps the hot path free of
// error returns. Done for an item that is not being processed is logged as
// an error: it is a bug. An add after shutdown is logged at V(1), since
// event handlers often race with a stopping controller; a negative delay
// is logged at V(1) and adds the item now, since it usually comes from a
// deadline that has just passed.
//
// # Metrics
//
// A queue named with WithName records metrics through the MetricsProvider
// given with WithMetricsProvider. An implementation should register them
// under the names dashboards for Kubernetes controllers already use, each
// with the queue's name as the label "name":
//
//	workqueue_depth                              Gauge      items added and not yet handed out
//	workqueue_adds_total                         Counter    adds of an item not already counted in depth
//	workqueue_queue_duration_seconds             Histogram  time from ready to Get
//	workqueue_work_duration_seconds              Histogram  time from Get to Done
//	workqueue_unfinished_work_seconds            Gauge      summed age of work in progress
//	workqueue_longest_running_processor_seconds  Gauge      age of the oldest work in progress
//	workqueue_retries_total                      Counter    AddAfter calls, AddRateLimited included
//
// workqueue_depth counts, as client-go's does, an item added again while
// it is being processed, although Len does not until Done queues it.
// The two unfinished-work gauges are refreshed every 500ms by a goroutine
// that runs only when metrics are recorded. Without metrics the queue
// reads no clock on Add, Get and Done.
//
// # Cost
//
// A queue method takes the queue's one mutex at most once. Item state
// lives in one hash table (the item is hashed before the lock is taken),
// ready items in a ring buffer, and delayed items in a heap, so a queue in
// steady state does not allocate. A worker takes the lock about once per
// item, in Done, and a producer seldom: Get takes most items from a small
// lock-free ring that a Get holding the lock fills with a batch of the
// oldest ready items, and Add leaves the item in a lock-free inbox that
// the next lock holder applies, in order. With more goroutines than
// cores, a lock waiter parks and is woken at the cost of context switches,
// and without these a busy queue spends more time on that than on its own
// work. Done applies itself under the lock so that once it returns the
// queue holds no reference to the finished item (unless it was added
// again): a queue of pointers does not keep finished objects alive. The
// bench module compares this package with client-go's queue side by side.
package workqueue
