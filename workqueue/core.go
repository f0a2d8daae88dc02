package workqueue

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// queueCore is what Queue and PriorityQueue share, each embedding it: the
// lock, the accounting of workers asleep in Get, the state and steps of
// shutdown, the timer goroutine's signals, and the settings every queue
// has. What a queue does its own way during a shutdown it supplies as a
// stopper.
type queueCore struct {
	// Queue's Add reads these without the lock, and they rarely change;
	// they have a cache line of their own so that the fields the lock
	// holder writes on every call do not evict them from the producers'
	// caches. (A PriorityQueue reads them with the lock held.)
	asleep atomic.Int32 // workers waiting on wakeup that nobody has woken
	closed atomic.Bool  // shutdown has begun; set with mu held
	_      [cacheLine]byte

	mu       sync.Mutex
	wakeup   sync.Cond // Get waits here for an item; see signal
	drained  sync.Cond // Broadcast when a draining shutdown may return
	waking   int       // workers woken that have not yet returned from Wait
	draining bool      // a ShutDownWithDrain is waiting

	stop chan struct{} // closed by the first shutdown
	wake chan struct{} // tells the timer goroutine of an earlier deadline
	wg   sync.WaitGroup

	name   string
	clock  clock.WithTicker
	epoch  time.Time
	logger logr.Logger
}

// stopper is what a queue does its own way in the shutdown steps of its
// queueCore, with the lock held.
type stopper interface {
	// closing runs once, when closed has just been set: it drops the
	// items waiting for a deadline, and makes sure that no add in flight
	// goes unnoticed.
	closing()
	// sync brings in the adds on their way, before idle is asked.
	sync()
	// idle reports whether no item is ready or being processed, and no
	// add is on its way.
	idle() bool
}

// init readies the core of a new queue with the options o.
func (c *queueCore) init(o *options) {
	c.wakeup.L = &c.mu
	c.drained.L = &c.mu
	c.stop = make(chan struct{})
	c.wake = make(chan struct{}, 1)
	c.name, c.clock, c.logger = o.name, o.clock, o.logger
	c.epoch = c.clock.Now()
}

// now is the time since the queue was created; int64 arithmetic is all
// the queue needs, and Since reads one clock where Now reads two.
func (c *queueCore) now() time.Duration { return c.clock.Since(c.epoch) }

// goReportUnfinished starts the goroutine that calls refresh, with the
// lock held, every unfinishedWorkPeriod until shutdown.
func (c *queueCore) goReportUnfinished(refresh func()) {
	// Start the ticker here, not in the goroutine, so that a fake clock
	// stepped right after New already drives it.
	ticker := c.clock.NewTicker(unfinishedWorkPeriod)
	c.wg.Go(func() { reportUnfinishedWork(ticker, c.stop, &c.mu, refresh) })
}

// signal wakes one of the workers asleep in Get, of which the caller has
// seen at least one; the lock is held. It counts the worker as waking
// from now on, so that a wakeWorker that follows before the worker runs
// does not signal for it again.
func (c *queueCore) signal() {
	c.asleep.Add(-1)
	c.waking++
	c.wakeup.Signal()
}

// sleep waits in Get, which has counted the caller asleep, until a
// signal or wakeAll; the lock is held.
func (c *queueCore) sleep() {
	c.wakeup.Wait()
	c.waking--
}

// stayAwake withdraws the announcement of a worker that was going to
// sleep in Get and found an item after all; the lock is held. The items
// its own sync made ready may have had wakeWorker count it as woken
// already (asleep and waking are counts, not names); then it takes back
// the wake-up, whose Signal found no waiter or woke another sleeper that
// accounts for itself.
func (c *queueCore) stayAwake() {
	if c.asleep.Load() > 0 {
		c.asleep.Add(-1)
	} else {
		c.waking--
	}
}

// wakeAll wakes every worker asleep in Get; the lock is held.
func (c *queueCore) wakeAll() {
	c.waking += int(c.asleep.Swap(0))
	c.wakeup.Broadcast()
}

// shutDown is ShutDown, and with drain ShutDownWithDrain, of the queue q
// whose core c is. The first call closes the queue: closed is set, q
// closes (stopper.closing), the queue's goroutines are told to stop and
// every sleeping worker is woken, to hand out what is left and then
// report shutdown. A draining call then waits until q is idle, unless a
// ShutDown (draining false) ends the wait. Either waits for the queue's
// goroutines.
func (c *queueCore) shutDown(q stopper, drain bool) {
	c.mu.Lock()
	if !c.closed.Load() {
		c.closed.Store(true) // Add reads it without the lock; see Queue.wakeAppliers
		q.closing()
		close(c.stop)
		c.wakeAll()
	}
	c.draining = drain
	if drain {
		q.sync()
		for c.draining && !q.idle() {
			c.drained.Wait()
			q.sync()
		}
	} else {
		c.drained.Broadcast()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// checkDrained releases a waiting ShutDownWithDrain if q, whose core c
// is, is idle now; the lock is held. Whoever may have made q idle calls
// it: Done, on every call, so the check that nobody waits is inlined.
func (c *queueCore) checkDrained(q stopper) {
	if c.draining {
		c.releaseDrained(q)
	}
}

func (c *queueCore) releaseDrained(q stopper) {
	if q.idle() {
		c.drained.Broadcast()
	}
}

// kickTimer tells the timer goroutine that an earlier deadline came in.
func (c *queueCore) kickTimer() {
	select {
	case c.wake <- struct{}{}:
	default: // it has been told already
	}
}

// dropAfterShutdown logs at V(1) that c's queue drops item, added after
// shutdown. A function rather than a method so that item, of the queue's
// type, is made an interface value only when the line is logged.
func dropAfterShutdown[T any](c *queueCore, item T) {
	if l := c.logger.V(1); l.Enabled() {
		l.Info("Dropping an item added after shutdown", "queue", c.name, "item", item)
	}
}
