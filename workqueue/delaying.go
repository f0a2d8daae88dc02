package workqueue

import (
	"math"
	"time"

	"k8s.io/utils/clock"
)

// DelayingQueue is a Queue that can also add an item after a delay.
//
// One goroutine and one timer serve all delays: pending items wait in a
// heap ordered by deadline, and AddAfter never blocks. Create one with
// NewDelaying and stop it with ShutDown or ShutDownWithDrain, which also
// stop that goroutine.
type DelayingQueue[T comparable] struct {
	Queue[T]
}

// NewDelaying returns an empty delaying queue and starts its timer
// goroutine.
func NewDelaying[T comparable](opts ...Option) *DelayingQueue[T] {
	q := new(DelayingQueue[T])
	q.init(newOptions(opts))
	return q
}

func (q *DelayingQueue[T]) init(o *options) {
	q.Queue.init(o)
	q.wg.Go(func() { q.runTimer(q.promoteDue) })
}

// AddAfter adds item once delay has passed. If item already has an
// earlier deadline, or is already queued, the earlier time wins and this
// call changes nothing; a later Add makes it ready at once. A delay of
// zero adds item now. A negative delay also adds item now and is logged
// at V(1): it usually comes from a deadline that has just passed, but it
// may be a sign error. After shutdown AddAfter drops the item.
//
// Each call counts towards workqueue_retries_total.
func (q *DelayingQueue[T]) AddAfter(item T, delay time.Duration) {
	h := hashItem(q.seed, item)
	var now time.Duration
	if delay > 0 {
		now = q.now() // read the clock outside the lock, and only if needed
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed.Load() {
		dropAfterShutdown(&q.queueCore, item)
		return
	}
	if q.metrics != nil {
		q.metrics.retries.Inc()
	}
	if delay <= 0 {
		q.sync() // the Adds in the inbox came first
		if delay < 0 {
			if l := q.logger.V(1); l.Enabled() {
				l.Info("Negative delay, adding the item now", "queue", q.name, "item", item, "delay", delay)
			}
		}
		q.makeDirty(item, h, q.state(item, h))
		return
	}
	st := q.state(item, h)
	if st.flags&dirty != 0 {
		return // ready already, sooner than any delay
	}
	at := now + min(delay, math.MaxInt64-now) // saturate rather than wrap
	if st.flags&waiting != 0 {
		if q.waiting.at(st.slot) <= at {
			return
		}
		q.waiting.cancel(st.slot) // the earlier deadline replaces it
	}
	st.flags |= waiting
	slot, earliest := q.waiting.add(hashedItem[T]{item, h}, at)
	st.slot = slot
	if earliest {
		q.kickTimer()
	}
}

// promoteDue makes the items whose deadline is not after now ready, in
// deadline order. It returns how long until the next deadline, and false
// if nothing is waiting. q.mu is held.
func (q *Queue[T]) promoteDue(now time.Duration) (next time.Duration, ok bool) {
	q.sync() // Adds made before these items became due go first
	for {
		s, slot, next, ok := q.waiting.popDue(now)
		if s == nil {
			return next, ok
		}
		if s.live {
			q.makeDirty(s.val.item, s.val.hash, q.state(s.val.item, s.val.hash)) // cancels the slot
		}
		q.waiting.release(slot)
	}
}

// dropWaiting discards the items waiting for a deadline, at shutdown;
// q.mu is held.
func (q *Queue[T]) dropWaiting() {
	q.waiting.drop(func(w hashedItem[T]) {
		i := q.items.find(w.hash, w.item)
		st := q.items.at(i)
		if st.flags &^= waiting; st.flags == 0 {
			q.items.deleteAt(i)
		}
	})
}

// runTimer is the loop of a queue's timer goroutine, with one reusable
// timer: it sleeps until the earliest deadline, or until an add brings
// in an earlier one (kickTimer), and makes due items ready. Until the
// queue is closed, it calls promoteDue with the lock held, which makes
// the items due at now ready and says how long until the next deadline
// (ok false if nothing waits), and sleeps until then, a wake or stop.
func (c *queueCore) runTimer(promoteDue func(now time.Duration) (next time.Duration, ok bool)) {
	var t delayTimer
	defer t.disarm()
	for {
		c.mu.Lock()
		if c.closed.Load() {
			c.mu.Unlock()
			return
		}
		at := c.now()
		next, ok := promoteDue(at)
		c.mu.Unlock()

		if !ok {
			t.disarm()
		} else {
			t.arm(c.clock, next)
			// A timer fires its duration after the clock reading it is
			// armed at, which may be later than now: then it fires late,
			// and a fake clock that was stepped exactly to the deadline
			// never fires it. Look again instead of trusting it.
			if c.now()-at >= timerSlack {
				continue
			}
		}
		select {
		case <-c.stop:
			return
		case <-c.wake:
		case <-t.fired():
			t.armed = false
		}
	}
}

// timerSlack is how far the clock may move while the timer is armed
// before runTimer re-reads the heap rather than risk firing late.
const timerSlack = time.Millisecond

// delayTimer is runTimer's one reusable timer.
type delayTimer struct {
	timer clock.Timer
	armed bool
}

func (t *delayTimer) arm(c clock.WithTicker, d time.Duration) {
	if t.timer == nil {
		t.timer = c.NewTimer(d)
	} else {
		t.disarm()
		t.timer.Reset(d)
	}
	t.armed = true
}

func (t *delayTimer) disarm() {
	if t.armed && !t.timer.Stop() {
		// It fired and nobody received: empty the channel so that neither
		// a stale tick nor a fake clock blocks on it later.
		select {
		case <-t.timer.C():
		default:
		}
	}
	t.armed = false
}

// fired is the channel the armed timer fires on; nil (never ready) when
// the timer is not armed.
func (t *delayTimer) fired() <-chan time.Time {
	if !t.armed {
		return nil
	}
	return t.timer.C()
}
