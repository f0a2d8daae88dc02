package workqueue

import "hash/maphash"

// The rules every part of a queue keeps. They hold whenever q.mu is free;
// a method that breaks one while it holds the lock restores it before it
// unlocks. The files named hold the parts.
//
// Item table (items, table.go). An item has an entry exactly while it is
// queued, processing or waiting, and the entry's flags say which:
//   - dirty: the item needs processing. Either it is ready (below) and not
//     processing, or it is processing and Done will make it ready.
//   - processing: a worker has it, from its take to its Done.
//   - waiting: it is not dirty, and slot names its live delay slot.
//
// An entry left with no flag is deleted at once (finish, dropWaiting).
// q.processing counts the entries flagged processing.
//
// Ready items (fifo.go, ring.go, get.go). The FIFO and the ring together
// hold each ready item exactly once, in the order it became ready, the
// ring's before the FIFO's; only a lock holder puts, and with metrics the
// ring stays empty. A Get takes from the ring without the lock, so its
// take is recorded later: until a lock holder records the takes
// (recordTakes, in take order), a taken item still reads as ready.
// Whoever relies on the flags of a ready item records the takes first
// (state), so no call sees a stale dirty flag.
//
// No stale references. A cell, slot or entry holds an item only while
// the item is queued, processing or waiting: the FIFO and the inbox clear
// a cell when they pop it, the ring once the take is recorded and its
// taker has read the cell (clearTaken), the table when it deletes an
// entry, the delay heap when an item stops waiting (cancel). Done syncs
// before it finishes the item, so once it returns nothing holds a
// finished item.
//
// Add inbox (adds, inbox.go, done.go). An Add takes effect when it claims
// a cell; the inbox holds the Adds claimed and not yet applied, in claim
// order. Every lock holder that makes an item ready, or looks at more
// than one item, applies them first (sync), so ready items keep the order
// of their Adds. A filled cell is applied by the next sync; an Add that
// finds a worker asleep or the queue shut down applies it itself
// (wakeAppliers). Shutdown seals the inbox, so that no Add claims a cell
// after it; Get does not report shutdown, nor a drain end, while an Add
// claimed before the seal is unsettled.
//
// Sleeping workers (get.go, core.go). asleep counts the workers waiting
// on wakeup that nobody has signalled, waking those signalled that have
// not yet returned from Wait. Whoever signals moves one from asleep to
// waking first (signal, wakeAll); a worker takes itself off waking when
// Wait returns (sleep). wakeWorker signals only while fewer workers are
// waking than items are ready. A worker counts itself asleep before its
// last look at the inbox, and an Add looks at asleep after its push, so
// one of them sees the other; a worker whose last look finds work takes
// its count back (stayAwake).
//
// Delay heap (waiting, heap.go, delaying.go). A live slot belongs to
// exactly one item, whose entry is flagged waiting and names it. A slot
// is cleared as soon as its item stops waiting, and reused only once its
// heap entry has left the heap; add compacts the heap when half or more
// of 64 or more entries are dead. Due items become ready in (deadline,
// seq) order, after the inbox is applied. runTimer sleeps until the
// earliest deadline, or until AddAfter brings in an earlier one.
//
// Shutdown (shutdown.go, core.go). closed is set once, with q.mu held; the
// waiting items are dropped then, and later adds are dropped. draining is
// set while a ShutDownWithDrain waits for idle; whoever makes the queue
// idle broadcasts drained (checkDrained).
//
// Metrics (metrics.go). metrics.dirty is the number of entries flagged
// dirty: the workqueue_depth gauge.

// Queue is a work queue of distinct items: an item is queued at most once
// however often it is added, is handed to one worker at a time, and is
// handed out again after Done if it was added while being processed.
// Distinct items are handed out in the order they became ready.
//
// Create one with New; the zero value is not usable. All methods are safe
// for concurrent use.
type Queue[T comparable] struct {
	// Add, Get and Done read these without the lock, and they rarely
	// change. They share a cache line with the first fields of queueCore,
	// which Add reads too, and which queueCore pads from the fields the
	// lock holder writes on every call.
	seed    maphash.Seed     // hashItem's seed for items
	metrics *queueMetrics[T] // nil when no metrics are recorded
	queueCore

	items      table[T, itemState]      // every item that is queued, processing or waiting
	fifo       fifo[T]                  // ready items, behind the ring's
	ring       readyRing[T]             // older ready items, for Get without the lock
	processing int                      // recorded takes not yet Done
	adds       inbox[T]                 // Add calls not yet applied
	waiting    delayHeap[hashedItem[T]] // items waiting for a deadline (DelayingQueue)
}

// itemState is what the queue keeps per item; one probe of the table
// answers every question an operation has about the item.
type itemState struct {
	slot  uint32 // the item's slot in the delay heap, when waiting
	flags uint8
}

const (
	dirty      uint8 = 1 << iota // needs processing: ready, or requeued at Done
	processing                   // handed out by Get, not yet Done
	waiting                      // has a live entry in the deadline heap
)

// New returns an empty queue.
func New[T comparable](opts ...Option) *Queue[T] {
	q := new(Queue[T])
	q.init(newOptions(opts))
	return q
}

func (q *Queue[T]) init(o *options) {
	o.rejectPriorityOptions()
	q.queueCore.init(o)
	q.seed = maphash.MakeSeed()
	q.ring.init()
	q.metrics = newQueueMetrics[T](o.metrics, o.name)
	if q.metrics != nil {
		q.goReportUnfinished(func() { q.metrics.updateUnfinished(q.now()) })
	}
}

// Add marks item as needing processing. An item that is already queued
// stays where it is; an item being processed is handed out again after
// Done; an item waiting for a delay (DelayingQueue.AddAfter) becomes ready
// now and its pending delay is dropped. After shutdown Add drops the item
// and logs that at V(1).
//
// Add usually does not take the queue's lock: it leaves item in a
// lock-free inbox that the next call to take the lock applies first (Get
// when the ring runs low or empty, Done, Len, AddAfter, ShutDownWithDrain),
// in the order the Adds were made, so each observes it as if it had
// happened when Add returned. Add applies the inbox itself when a worker
// sleeps in Get (so that the item wakes it), when a shutdown has begun,
// when the inbox is full, and when metrics are recorded (so that queue
// durations start when Add is called).
func (q *Queue[T]) Add(item T) {
	h := hashItem(q.seed, item)
	if q.metrics == nil && !q.closed.Load() && q.adds.push(item, h) {
		q.wakeAppliers()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed.Load() {
		dropAfterShutdown(&q.queueCore, item)
		return
	}
	q.sync() // the Adds in the inbox came first
	q.makeDirty(item, h, q.state(item, h))
}

// wakeAppliers makes sure that an Add just left in the inbox is applied by
// someone: sleeping workers would not come by to apply it, so if any
// exists this applies it itself. A worker announces its sleep before it
// last looks at the inbox, and this looks for sleepers after the push;
// with sequentially consistent atomics on both sides, at least one side
// sees the other. Likewise a shutdown sets closed before it looks at the
// inbox: an Add that claimed its cell before the inbox was sealed is
// either seen by the shutdown or sees closed, and is applied at once.
// Get does not report shutdown, nor ShutDownWithDrain return, while such
// an Add is unsettled, so this wakes them once the last one is applied.
// Otherwise the next Get that takes the lock (to top the ring up, or
// because it is empty) applies the Add, or any other call that syncs.
func (q *Queue[T]) wakeAppliers() {
	if q.asleep.Load() == 0 && !q.closed.Load() {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	if q.closed.Load() && q.adds.settled() {
		q.wakeAll()
		q.checkDrained(q)
	}
}

// makeDirty marks item, whose hash is h and whose state is st, as needing
// processing; q.mu is held. st is what state returns, or the table's entry
// when the takes that matter to the call are recorded already (applyAdds).
func (q *Queue[T]) makeDirty(item T, h uint64, st *itemState) {
	if st.flags&dirty != 0 {
		return
	}
	if st.flags&waiting != 0 {
		st.flags &^= waiting
		q.waiting.cancel(st.slot)
	}
	st.flags |= dirty
	if st.flags&processing == 0 {
		q.fifo.push(item, h)
		q.wakeWorker()
	}
	if q.metrics != nil {
		q.metrics.added(item, q.now())
	}
}

// state returns the state of item, whose hash is h, inserting an empty
// one if item is not known; q.mu is held. The pointer is valid until the
// table next changes. A ready item may be in the ring and have been
// taken since the lock holders last recorded takes; then the takes are
// recorded first, so that its state says processing.
func (q *Queue[T]) state(item T, h uint64) *itemState {
	st := q.items.upsert(h, item)
	if st.flags&(dirty|processing) == dirty {
		q.recordTakes(q.ring.takes()) // changes values, not the table
	}
	return st
}

// readyLen returns the number of items ready to be handed out; q.mu is
// held. Takes from the ring may make it smaller at any time.
func (q *Queue[T]) readyLen() int { return q.fifo.len() + q.ring.len() }

// idle reports whether no item is ready or being processed, and no Add is
// unsettled in the inbox; q.mu is held. An item taken from the ring is
// being processed before its take is recorded, so the ring must be empty
// with every take recorded: checking readyLen and processing apart would
// miss a take between the two.
func (q *Queue[T]) idle() bool {
	return q.processing == 0 && q.fifo.len() == 0 && q.ring.drained() && q.adds.settled()
}

// wakeWorker wakes a sleeping worker for an item just pushed, unless the
// workers already woken and on their way are as many as the items ready.
// Waking more would only have them find the FIFO empty and go back to
// sleep, and every futile wake-up costs two context switches. q.mu is
// held.
func (q *Queue[T]) wakeWorker() {
	if q.asleep.Load() > 0 && q.waking < q.readyLen() {
		q.signal()
	}
}

// Len returns the number of items ready to be handed out. It is for
// information only: another goroutine may change it at once.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	return q.readyLen()
}
