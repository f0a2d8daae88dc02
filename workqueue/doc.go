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
// embeds the one before it. PriorityQueue has RateLimitingQueue's methods
// and hands out by priority, age and flow instead of first in, first out;
// see Priority queue below.
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
// # Priority queue
//
// PriorityQueue (NewPriority) is a RateLimitingQueue for controllers
// whose keys are not all equally urgent: after a restart, the thousands
// of keys of the initial list should not hold back a change made
// meanwhile, nor one namespace's burst another namespace's key. It
// follows controller-runtime's priority queue's API (AddWithOpts with
// AddOpts, and GetWithPriority), with the differences listed under
// Differences from controller-runtime below; it adds aging, flows, a
// debounce and reasons, and satisfies client-go's
// TypedRateLimitingInterface too.
//
// Priority is per add, an int, higher first; Add is priority 0 and the
// initial list goes in at LowPriority. Adds of a queued item keep the
// highest priority asked for, and an item raised goes behind the items
// already at its new priority. A requeue (AddAfter, AddRateLimited, or
// AddWithOpts with RateLimited or a positive After) without a priority
// keeps the item's own, the one it is queued at or was handed out at, so
// a low-priority item that fails stays low (controller-runtime #3157).
// An item added while it is processed is handed out again after Done at
// the highest priority of those adds. Items of equal priority go first
// in, first out, in the order they became ready.
//
// Aging keeps a priority from starving the ones below it
// (controller-runtime #3496, where initial-list items waited forever
// behind a stream of normal-priority requeues). An item that has been
// ready for MaxWait (WithMaxWait, a minute by default) is overdue, and
// overdue items, in the order they became ready, take turns with the
// items not overdue: while both kinds are ready, Gets alternate between
// the oldest overdue item and the highest-priority other one. So an item
// is handed out at most MaxWait after it became ready, plus two Gets for
// it and for each overdue item ahead of it, which became ready before it
// (in its flow, with flows); until then priorities hold strictly. Taking
// turns rather than going ahead of everything keeps aging from undoing
// priorities when the backlog is large: after a restart over 100,000
// objects the initial list is overdue after a minute, and a change made
// then still waits for one Get, not for the whole list.
//
// Flows give fairness between tenants. An add may name a flow
// (AddOpts.Flow; a controller uses the namespace). Within a priority,
// and among overdue items, the flows with items take turns, one item a
// turn, first in, first out within a flow. A flow's item therefore waits
// for at most one item of each other flow with items at its priority, per
// item ahead of it in its own flow: with one flow of 10,000 items and
// another of one, the one is handed out within two Gets. Flows compose
// with priorities: a higher priority still goes first.
//
// WithDebounce(window, maxDelay) holds an added key for window, and for
// window again after each further add, but never more than maxDelay
// after the burst's first add: a burst of changes is reconciled once, a
// bounded time after it began.
//
// Reasons say why a key was queued. Each add may carry Reasons, a bit
// set the caller defines (a controller: the kind of event, initial list,
// resync, requeue); the adds that merge into one queued item merge their
// reasons, and GetWithReasons hands them out with the item and clears
// them, so adds made while the item is processed come with its next
// hand-out. Items stay plain comparable keys, and a queue whose adds
// carry no reasons, priorities or flows pays nothing for them.
//
// The priority queue is built for order, not for the last nanosecond:
// every call takes its one mutex, where the plain queues' Get and Add
// mostly do not (see Cost). Like them, it does not allocate in steady
// state. Use RateLimitingQueue when every key is as urgent as the next.
//
// # Differences from controller-runtime
//
// PriorityQueue follows controller-runtime's priority queue's API, with
// these differences, which a worker loop ported from it may meet. Most
// keep the behaviour of client-go's queue, which worker loops are written
// against, and of this package's other queues:
//
//   - An item added while it is processed becomes ready at Done, behind
//     the items that became ready meanwhile, as in client-go's queue;
//     controller-runtime's queues it at once, in its place by add time,
//     and after Done hands it out from there, ahead of the items added
//     after it. No Get could take it before Done, so its turn, like its
//     MaxWait, counts from then, as for an item whose delay ends; and a
//     key added again during each of its reconciles does not go ahead of
//     the keys added while it held a worker.
//   - Len counts the items a Get could take now: not one added while it
//     is processed, until Done, as client-go's Len; controller-runtime's
//     counts it. A loop that calls Get while Len is above zero then never
//     blocks on an item no Get can take. (workqueue_depth counts the item
//     in both queues.)
//   - After ShutDown, Get keeps handing out the items queued before it
//     and reports shutdown once none is left, and ShutDownWithDrain waits
//     until they are Done, as client-go's queue does; controller-runtime's
//     Get reports shutdown at once, leaving them unprocessed, and its
//     ShutDownWithDrain is ShutDown. A drain needs the items handed out,
//     and a queued change is not lost to a stop. A worker that must stop
//     at once checks ShuttingDown after Get (and calls Done).
//   - A requeue (AddAfter, AddRateLimited, or AddWithOpts with
//     RateLimited or a positive After) without a priority keeps the
//     item's own, the one it is queued at or was handed out at;
//     controller-runtime's queue gives it 0, which raises a queued item
//     below 0, and its controller passes the priority it handed out
//     instead (controller-runtime #3157). AddAfter and AddRateLimited
//     carry no priority, so keeping it in the queue is what keeps a
//     failing low-priority item low for every caller.
//   - In AddWithOpts, an After of zero or less is no delay, whatever its
//     sign: the add is a plain one, as with the zero AddOpts and as in
//     controller-runtime, since a negative After (a deadline just passed)
//     means no delay as much as zero does. With RateLimited the limiter's
//     delay then applies; controller-runtime adds the item at once when
//     After is negative (and still records the failure). AddAfter, by
//     contrast, is a requeue whatever its delay, which makes the item
//     ready now if it is zero or less; controller-runtime's
//     AddAfter(item, 0) is a plain Add.
//   - workqueue_retries_total counts every requeue, whatever its delay:
//     each AddAfter and AddRateLimited call, and each item of an
//     AddWithOpts with RateLimited or a positive After, as client-go's
//     queue and this package's DelayingQueue count every AddAfter.
//     controller-runtime counts only the adds it delays by more than
//     zero, so a retry its limiter lets through at once is not counted.
//   - An Add of an item waiting for a delay makes it ready now, behind
//     the items already ready at its priority, as the end of its delay
//     would; controller-runtime's gives it back the place of the add that
//     made it wait, ahead of the items added since. Items go in the order
//     they became ready: waiting earns no place.
//   - AddRateLimited, and AddWithOpts with RateLimited, ask the rate
//     limiter before they return, so NumRequeues counts the failure at
//     once; controller-runtime's queue applies adds later, on a goroutine
//     of its own. Here every call does its work before it returns.
//   - Aging is on by default: an item ready for MaxWait (a minute) takes
//     turns with the higher priorities (see Priority queue).
//     controller-runtime's priorities are strict, so a steady stream of
//     adds at one priority starves those below it (controller-runtime
//     #3496).
//
// Flows, the debounce and reasons change nothing until an add names a
// flow, WithDebounce is given, or an add carries reasons.
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
// is logged at V(1) and adds the item as if without a delay, since it
// usually comes from a deadline that has just passed.
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
//	workqueue_retries_total                      Counter    AddAfter calls, AddRateLimited and AddWithOpts requeues included
//
// A PriorityQueue whose provider is a PriorityMetricsProvider labels
// workqueue_depth by priority, as controller-runtime does, and once its
// adds name flows, reports workqueue_flows and
// workqueue_largest_flow_depth (a count, not a label per flow, which
// would be a series per namespace); see PriorityMetricsProvider.
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
//
// Memory grows with the items a queue holds, not with how often they are
// added, and what a burst took is given back once the queue has emptied
// after it a few times. A PriorityQueue keeps one record per item, in a
// slice that its ready set links through, found by a hash index of 8-byte
// slots; it needs no per-item map for its metrics either. For 10,000
// NamespacedName keys that is about 115 bytes of heap per key, against
// about 220 (300 with metrics) for a Queue, whose hash table slots hold
// the key itself (BenchmarkQueueBytes measures both).
package workqueue
