package workqueue

import (
	"hash/maphash"
	"math"
	"time"
)

// PriorityQueue is a rate-limiting work queue, with RateLimitingQueue's
// methods, whose items carry a priority, a flow and a set of reasons; see
// the package documentation for when to use it, and for how it differs
// from controller-runtime's priority queue, whose API it follows. Like
// the other queues, it holds each item once however often it is added,
// hands it to one worker at a time, and hands it out again after Done if
// it was added while being processed. It differs in which ready item Get
// hands out:
//
//   - Priority: a higher priority goes first. Adding an item that is
//     already queued raises its priority to the highest asked for.
//   - Aging: an item that has been ready for MaxWait (WithMaxWait) is
//     overdue, and overdue items, oldest first, take turns with the
//     others, one Get each: no load of higher-priority adds delays an
//     overdue item further than one turn per overdue item before it, and
//     no overdue backlog delays a fresh change by more than one turn.
//   - Fairness: within a priority (and among overdue items) the flows
//     (AddOpts.Flow) take turns, one item each, so one flow's burst delays
//     another flow's item by at most one item per busy flow.
//   - Otherwise first in, first out.
//
// Create one with NewPriority and stop it with ShutDown or
// ShutDownWithDrain, which also stop its timer goroutine. All methods are
// safe for concurrent use.
type PriorityQueue[T comparable] struct {
	seed    maphash.Seed
	limiter RateLimiter[T]
	metrics *priorityMetrics[T] // nil when no metrics are recorded
	queueCore

	items      priorityItems[T] // every item that is queued, processing or waiting
	ready      readySet[T]
	processing int
	waiting    delayHeap[waitState] // items waiting for AddAfter or the debounce

	maxWait          time.Duration
	window, maxDelay time.Duration // the debounce; window is 0 when off
}

// waitState is what a PriorityQueue's delay slot holds about its item:
// what only a waiting item needs, kept out of every item's record.
type waitState struct {
	id       int32         // the item's record
	afterAt  time.Duration // the earliest AddAfter deadline, or never
	burstEnd time.Duration // the debounce's latest deadline, or never
}

const never = time.Duration(math.MaxInt64)

// LowPriority is the priority for the events of an informer's initial
// list and of resyncs, below the 0 of other adds: controller-runtime's
// handler.LowPriority.
const LowPriority = -100

// DefaultMaxWait is how long a PriorityQueue's item may be ready before
// it is overdue and no longer waits for higher priorities, unless
// WithMaxWait says otherwise.
const DefaultMaxWait = time.Minute

// Reasons is a set of reasons an item was added, one bit each, that the
// caller defines: a controller marks events, resyncs and requeues. The
// reasons of the adds that merge into one queued item are merged, and
// GetWithReasons hands them out with the item.
type Reasons uint64

// Has reports whether r holds every reason in o.
func (r Reasons) Has(o Reasons) bool { return r&o == o }

// AddOpts says how AddWithOpts adds its items; the zero value is a plain
// Add. It has the fields of controller-runtime's priorityqueue.AddOpts,
// with a flow and reasons.
type AddOpts struct {
	// After, if positive, delays the items as AddAfter does, and makes
	// the add a requeue. Zero or less is no delay, whatever its sign: the
	// add is a plain one, as with the zero AddOpts, so it does not count
	// towards workqueue_retries_total, does not keep the item's priority,
	// and is debounced (WithDebounce). controller-runtime reads After the
	// same way. A negative After is logged at V(1).
	After time.Duration
	// RateLimited delays each item as AddRateLimited does, and makes the
	// add a requeue; with a positive After too, the shorter delay wins.
	RateLimited bool
	// Priority is the items' priority; higher goes first. Nil means 0
	// for an add, and for a requeue (RateLimited, or a positive After)
	// the priority the item already has: the one it is queued at, or was
	// handed out at while it is processed; 0 for an item the queue does
	// not hold. An item already queued, or waiting for a delay, keeps the
	// higher of its priority and the new one; otherwise it takes the new
	// one.
	Priority *int
	// Flow is the fairness flow the items belong to, such as their
	// namespace; "" is the default flow. An item already queued, or
	// waiting, stays in its flow; an add without a flow leaves the item's
	// flow as it is.
	Flow string
	// Reasons are added to the items' pending reasons.
	Reasons Reasons
}

// NewPriority returns an empty priority queue that asks limiter for the
// delays of AddRateLimited, and starts its timer goroutine. A nil
// limiter is logged as an error and replaced by
// DefaultControllerRateLimiter on the queue's clock. WithMaxWait and
// WithDebounce apply to it along with the options of the other queues.
func NewPriority[T comparable](limiter RateLimiter[T], opts ...Option) *PriorityQueue[T] {
	o := newOptions(opts)
	q := &PriorityQueue[T]{limiter: limiterOrDefault(limiter, o)}
	q.queueCore.init(o)
	q.seed = maphash.MakeSeed()
	q.ready.init(&q.items)
	q.maxWait, q.window, q.maxDelay = o.priority.maxWait, o.priority.window, o.priority.maxDelay
	q.metrics = newPriorityMetrics[T](o.metrics, o.name)
	if q.metrics != nil {
		q.goReportUnfinished(func() { q.metrics.refresh(q.now(), &q.ready.flows) })
	}
	q.wg.Go(func() { q.runTimer(q.promoteDue) })
	return q
}

// addArgs is one item's add, as the public methods describe it.
type addArgs struct {
	prio     int
	prioSet  bool
	requeue  bool // keeps the item's priority and counts as a retry
	delay    time.Duration
	flow     string
	flowHash uint64
	reasons  Reasons
}

// Add marks item as needing processing at priority 0, or at the higher
// priority it is queued at. An item being processed is handed out again
// after Done; an item waiting for a delay becomes ready now, behind the
// items already ready at its priority (with WithDebounce: at the end of
// the debounce). After shutdown Add drops the item and logs that at V(1).
func (q *PriorityQueue[T]) Add(item T) { q.add(item, addArgs{}) }

// AddAfter adds item once delay has passed, at the priority it already
// has (see AddOpts.Priority). If item already waits for an earlier
// deadline, or is queued, the earlier time wins. A delay of zero adds it
// now; a negative delay too, and is logged at V(1). Whatever its delay,
// AddAfter is a requeue: it keeps the item's priority and counts towards
// workqueue_retries_total, as DelayingQueue's AddAfter (and client-go's)
// counts every call; AddRateLimited relies on that when its limiter
// returns no delay. AddWithOpts with an After of zero or less is a plain
// add instead (see AddOpts.After).
func (q *PriorityQueue[T]) AddAfter(item T, delay time.Duration) {
	q.add(item, addArgs{requeue: true, delay: delay})
}

// AddRateLimited records a failure of item with the rate limiter and adds
// item after the delay it returns, at the priority it already has.
func (q *PriorityQueue[T]) AddRateLimited(item T) { q.AddAfter(item, q.limiter.When(item)) }

// AddWithOpts adds items as o says: controller-runtime's
// priorityqueue.AddWithOpts, with a flow and reasons. An After of zero or
// less is no delay: without RateLimited the add is a plain one (see
// AddOpts.After).
func (q *PriorityQueue[T]) AddWithOpts(o AddOpts, items ...T) {
	// Only a positive After makes a requeue: After: -1ns is After: 0, the
	// zero AddOpts, a plain add (see AddOpts.After).
	a := addArgs{requeue: o.After > 0 || o.RateLimited, delay: o.After, reasons: o.Reasons}
	if o.Priority != nil {
		a.prio, a.prioSet = *o.Priority, true
	}
	if o.Flow != "" {
		a.flow, a.flowHash = o.Flow, hashItem(q.seed, o.Flow)
	}
	for _, item := range items {
		b := a
		if o.RateLimited {
			if d := q.limiter.When(item); b.delay <= 0 || d < b.delay {
				b.delay = d
			}
		}
		q.add(item, b)
	}
}

// Forget clears item's failures in the rate limiter. It does not remove
// item from the queue.
func (q *PriorityQueue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the failures the rate limiter has recorded for item.
func (q *PriorityQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

func (q *PriorityQueue[T]) add(item T, a addArgs) {
	h := hashItem(q.seed, item)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed.Load() {
		dropAfterShutdown(&q.queueCore, item)
		return
	}
	if a.requeue && q.metrics != nil {
		q.metrics.retries.Inc()
	}
	if a.delay < 0 {
		if l := q.logger.V(1); l.Enabled() {
			l.Info("Negative delay, adding the item now", "queue", q.name, "item", item, "delay", a.delay)
		}
	}
	id := q.items.upsert(h, item)
	st := q.items.at(id)
	known, pending := st.flags != 0, st.flags&(dirty|waiting) != 0
	prio := 0
	switch {
	case a.prioSet:
		prio = a.prio
	case a.requeue && known:
		prio = st.prio
	}
	if pending {
		prio = max(prio, st.prio)
	}
	if a.flow != "" && !pending && q.ready.flows.key(st.flow) != a.flow {
		old := st.flow
		st.flow = q.ready.flows.acquire(a.flow, a.flowHash)
		q.ready.flows.release(old)
	}
	st.reasons |= a.reasons
	old := st.prio
	st.prio = prio
	switch {
	case st.flags&dirty != 0:
		if prio != old {
			q.reprioritize(id, st, old)
		}
	case a.delay > 0 || !a.requeue && q.window > 0:
		q.wait(id, st, a.delay)
	default:
		q.makeDirty(id, st)
	}
}

// reprioritize follows the change of a dirty item's priority from old;
// q.mu is held.
func (q *PriorityQueue[T]) reprioritize(id int32, st *priorityItem[T], old int) {
	if st.flags&processing == 0 {
		q.ready.bump(id, st.prio)
	}
	if q.metrics != nil {
		q.metrics.reprioritized(old, st.prio)
	}
}

// wait makes item id, which is not dirty and whose record is st, wait:
// for delay if it is positive, otherwise for the debounce. The item
// becomes ready at the earliest of its AddAfter deadlines and the end of
// its debounce, which each debounced add moves to window from now, but
// never past maxDelay after the first. q.mu is held.
func (q *PriorityQueue[T]) wait(id int32, st *priorityItem[T], delay time.Duration) {
	now := q.now()
	w := waitState{id: id, afterAt: never, burstEnd: never}
	if st.flags&waiting != 0 {
		w = *q.waiting.val(st.slot)
	}
	due := w.afterAt
	if delay > 0 {
		w.afterAt = min(w.afterAt, after(now, delay))
		due = w.afterAt
		if st.flags&waiting != 0 {
			due = min(due, q.waiting.at(st.slot))
		}
	} else {
		if w.burstEnd == never {
			w.burstEnd = after(now, q.maxDelay)
		}
		due = min(due, after(now, q.window), w.burstEnd)
	}
	if due <= now {
		q.makeDirty(id, st)
		return
	}
	if st.flags&waiting != 0 {
		if q.waiting.at(st.slot) == due {
			*q.waiting.val(st.slot) = w
			return
		}
		q.waiting.cancel(st.slot)
	}
	st.flags |= waiting
	slot, earliest := q.waiting.add(w, due)
	st.slot = slot
	if earliest {
		q.kickTimer()
	}
}

// after returns now+d, saturating rather than wrapping.
func after(now, d time.Duration) time.Duration { return now + min(d, math.MaxInt64-now) }

// makeDirty marks item id, whose record is st, as needing processing:
// ready now, or at Done if it is being processed. q.mu is held.
func (q *PriorityQueue[T]) makeDirty(id int32, st *priorityItem[T]) {
	if st.flags&waiting != 0 {
		st.flags &^= waiting
		q.waiting.cancel(st.slot)
	}
	st.flags |= dirty
	var now time.Duration
	if st.flags&processing == 0 || q.metrics != nil {
		now = q.now()
	}
	if st.flags&processing == 0 {
		q.ready.push(id, now)
		q.wakeWorker()
	}
	if q.metrics != nil {
		q.metrics.added(id, st.flags&processing != 0, now, st.prio)
	}
}

// wakeWorker wakes a sleeping worker for an item just made ready, unless
// as many are already on their way as items are ready; q.mu is held.
func (q *PriorityQueue[T]) wakeWorker() {
	if q.asleep.Load() > 0 && q.waking < q.ready.n {
		q.signal()
	}
}

// Len returns the number of items ready to be handed out. It is for
// information only: another goroutine may change it at once.
func (q *PriorityQueue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.n
}
