package workqueue

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Queue is a work queue of distinct items: an item is queued at most once
// however often it is added, is handed to one worker at a time, and is
// handed out again after Done if it was added while being processed.
// Distinct items are handed out in the order they became ready.
//
// Create one with New; the zero value is not usable. All methods are safe
// for concurrent use.
type Queue[T comparable] struct {
	// Done reads these without the lock, and they rarely change; they
	// have cache lines of their own so that the fields the lock holder
	// writes on every call do not evict them from the workers' caches.
	seed     maphash.Seed     // items' hash seed, a copy of items.seed
	metrics  *queueMetrics[T] // nil when no metrics are recorded
	asleep   atomic.Int32     // workers waiting on ready that nobody has woken
	draining atomic.Bool      // a ShutDownWithDrain is waiting; set with mu held
	_        [cacheLine]byte

	mu      sync.Mutex
	ready   sync.Cond // Get waits here for an item; see wakeWorker
	drained sync.Cond // Broadcast when a draining shutdown may return
	waking  int       // workers woken that have not yet returned from Wait

	items      table[T, itemState] // every item that is queued, processing or waiting
	fifo       fifo[T]             // dirty items that are not being processed
	processing int                 // items handed out and not yet Done
	dones      doneInbox[T]        // Done calls not yet applied

	// Delayed items (DelayingQueue): a heap with lazy deletion, see heap.go.
	waiting  deadlineHeap[T]
	nwaiting int    // items whose heap entry is live
	seq      uint64 // last deadline.seq handed out
	wake     chan struct{}

	shuttingDown bool
	stop         chan struct{} // closed by the first shutdown
	wg           sync.WaitGroup

	name   string
	clock  clock.WithTicker
	epoch  time.Time
	logger logr.Logger
}

// itemState is what the queue keeps per item; one probe of the table
// answers every question an operation has about the item.
type itemState struct {
	at    time.Duration // the live heap entry's deadline, when waiting
	seq   uint32        // the low bits of the live heap entry's seq
	flags uint8
}

const (
	dirty      uint8 = 1 << iota // needs processing: in the FIFO, or requeued at Done
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
	q.ready.L = &q.mu
	q.drained.L = &q.mu
	q.items.init()
	q.seed = q.items.seed
	q.dones.init()
	q.wake = make(chan struct{}, 1)
	q.stop = make(chan struct{})
	q.name, q.clock, q.logger = o.name, o.clock, o.logger
	q.epoch = q.clock.Now()
	q.metrics = newQueueMetrics[T](o.metrics, o.name)
	if q.metrics != nil {
		// Start the ticker here, not in the goroutine, so that a fake
		// clock stepped right after New already drives it.
		ticker := q.clock.NewTicker(unfinishedWorkPeriod)
		q.wg.Go(func() { q.reportUnfinishedWork(ticker) })
	}
}

// now is the time since the queue was created; int64 arithmetic is all
// the queue needs, and Since reads one clock where Now reads two.
func (q *Queue[T]) now() time.Duration { return q.clock.Since(q.epoch) }

// Add marks item as needing processing. An item that is already queued
// stays where it is; an item being processed is handed out again after
// Done; an item waiting for a delay (DelayingQueue.AddAfter) becomes ready
// now and its pending delay is dropped. After shutdown Add drops the item
// and logs that at V(1).
func (q *Queue[T]) Add(item T) {
	h := hashItem(q.seed, item)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		q.dropAfterShutdown(item)
		return
	}
	q.makeDirty(item, h)
}

// wakeAppliers makes sure that a Done just left in the inbox is
// applied by someone: sleeping workers and a draining shutdown would not
// come by to apply it, so if any exists this applies it itself. Each of
// them announces itself before it last looks at the inbox, and this
// looks for them after the push; with sequentially consistent atomics on
// both sides, at least one side sees the other. Otherwise a worker's next
// Get applies it, or any other call that takes the lock.
func (q *Queue[T]) wakeAppliers() {
	if q.asleep.Load() == 0 && !q.draining.Load() {
		return
	}
	q.mu.Lock()
	q.sync()
	q.mu.Unlock()
}

// makeDirty marks item, whose hash is h, as needing processing; q.mu is
// held.
func (q *Queue[T]) makeDirty(item T, h uint64) {
	st := q.items.upsert(h, item)
	if st.flags&dirty != 0 {
		return
	}
	if st.flags&waiting != 0 {
		st.flags &^= waiting // its heap entry is now stale
		q.nwaiting--
	}
	st.flags |= dirty
	if st.flags&processing == 0 {
		q.fifo.push(item, h)
		q.wakeWorker()
	}
	if q.metrics != nil {
		q.metrics.added(item, q.now(), q.fifo.len())
	}
}

func (q *Queue[T]) dropAfterShutdown(item T) {
	if l := q.logger.V(1); l.Enabled() {
		l.Info("Dropping an item added after shutdown", "queue", q.name, "item", item)
	}
}

// wakeWorker wakes a sleeping worker for an item just pushed, unless the
// workers already woken and on their way are as many as the items ready.
// Waking more would only have them find the FIFO empty and go back to
// sleep, and every futile wake-up costs two context switches. q.mu is
// held.
func (q *Queue[T]) wakeWorker() {
	if q.asleep.Load() > 0 && q.waking < q.fifo.len() {
		q.asleep.Add(-1)
		q.waking++
		q.ready.Signal()
	}
}

// stayAwake withdraws the announcement of a worker that was going to
// sleep in Get and found an item after all; q.mu is held. The items its
// own sync made ready may have had wakeWorker count it as woken already
// (asleep and waking are counts, not names); then it takes back the
// wake-up, whose Signal found no waiter or woke another sleeper that
// accounts for itself.
func (q *Queue[T]) stayAwake() {
	if q.asleep.Load() > 0 {
		q.asleep.Add(-1)
	} else {
		q.waking--
	}
}

// Len returns the number of items ready to be handed out. It is for
// information only: another goroutine may change it at once.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	return q.fifo.len()
}

// Get blocks until an item is ready and hands it to the caller, who must
// call Done with it when finished. After shutdown Get keeps handing out
// the items still queued; once none are left it returns shutdown true
// and the caller, a worker, should stop.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	for q.fifo.len() == 0 && !q.shuttingDown {
		if testHookBeforeSleep != nil {
			testHookBeforeSleep()
		}
		q.asleep.Add(1)
		// A Done that pushed before the Add above and saw no sleeper left
		// its work in the inbox: apply it before deciding to sleep.
		q.sync()
		if q.fifo.len() > 0 {
			q.stayAwake()
			break
		}
		q.ready.Wait()
		q.waking--
		q.sync()
	}
	if q.fifo.len() == 0 {
		return item, true
	}
	e := q.fifo.pop()
	// An item in the FIFO is in the table, dirty and nothing else.
	*q.items.at(q.items.find(e.hash, e.item)) = itemState{flags: processing}
	q.processing++
	if q.metrics != nil {
		q.metrics.handedOut(e.item, q.now(), q.fifo.len())
	}
	return e.item, false
}

// testHookBeforeSleep, if set, runs in Get just before a worker
// announces that it is going to sleep: where a lock-free Done can slip in
// unnoticed.
var testHookBeforeSleep func()

// Done tells the queue that the worker has finished item. If item was
// added while it was being processed, it is queued again. Done for an
// item that is not being processed changes nothing and logs an error.
//
// Done usually does not take the queue's lock: it leaves item in a small
// lock-free inbox that the next Get (or any other call that takes the
// lock) applies first, so every call observes it as if it had happened
// when Done returned. Done applies it itself when a worker sleeps in Get
// or a ShutDownWithDrain waits, when the inbox is full, and when metrics
// are recorded (so that work durations end when Done is called).
func (q *Queue[T]) Done(item T) {
	h := hashItem(q.seed, item)
	if q.metrics == nil && q.dones.push(item, h) {
		q.wakeAppliers()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	q.finish(item, h)
}

// sync applies the Done calls waiting in the inbox; q.mu is held. Every
// call that takes the lock syncs before it looks at the queue, so each
// observes those calls as if they had happened when they returned.
func (q *Queue[T]) sync() { q.applyDones() }

// applyDones applies the Done calls waiting in the inbox; q.mu is held.
func (q *Queue[T]) applyDones() {
	for {
		item, h, ok := q.dones.pop()
		if !ok {
			return
		}
		q.finish(item, h)
	}
}

// finish applies Done(item); q.mu is held.
func (q *Queue[T]) finish(item T, h uint64) {
	i := q.items.find(h, item)
	if i < 0 || q.items.at(i).flags&processing == 0 {
		q.logger.Error(errNotProcessing, "Ignoring Done", "queue", q.name, "item", item)
		return
	}
	q.processing--
	st := q.items.at(i)
	st.flags &^= processing
	switch {
	case st.flags&dirty != 0:
		q.fifo.push(item, h)
		q.wakeWorker()
	case st.flags == 0:
		q.items.deleteAt(i)
	}
	if q.metrics != nil {
		q.metrics.done(item, q.now())
		q.metrics.requeued(q.fifo.len())
	}
	if q.draining.Load() && q.processing == 0 && q.fifo.len() == 0 {
		q.drained.Broadcast()
	}
}
