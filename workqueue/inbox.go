package workqueue

import "sync/atomic"

// inbox carries Add calls to whichever goroutine next holds the queue's
// lock, so that the producer does not take the lock itself: it never
// waits for a worker that holds the lock, so it is never parked and woken
// on the worker's processor, which on a machine with few cores leaves the
// other one idle for tens of microseconds.
//
// It is a bounded ring in which any number of goroutines push and only
// the lock holder drains. A pusher claims a position by advancing enq,
// provided the cell's last occupant has been drained (below freed), fills
// the cell and then sets its seq to position+1, which tells the drainer
// that the cell is filled for this lap; a seq left from an earlier lap is
// smaller. Draining does not write the cells' seq: the lock holder
// publishes how far it has drained, in batches (release), which saves an
// atomic store per call.
type inbox[E any] struct {
	// enq has a cache line of its own: callers write it without the
	// lock, and sharing a line with the fields the lock guards would slow
	// every lock holder down. deq and freed are the lock holder's; callers
	// only read freed, which changes once per releaseEvery items at most.
	// The cells are an array so that pushing reads no slice header.
	_     [cacheLine]byte
	enq   atomic.Uint64 // next position to claim; any goroutine
	_     [cacheLine - 8]byte
	deq   uint64        // next position to drain; lock holder only
	freed atomic.Uint64 // cells below it are drained and free; see release
	_     [cacheLine - 16]byte
	cells [inboxSize]inboxCell[E]
	_     [cacheLine]byte
}

const cacheLine = 64

// inboxCell holds one call: an Add's item, 32 bytes a cell for a string
// so that two fill a cache line.
type inboxCell[E any] struct {
	seq   atomic.Uint64 // position+1 once filled for that position; see push
	entry E
	hash  uint64 // the item's, computed by the caller, before the lock
}

// inboxSize bounds the calls in flight; beyond it Add takes the lock and
// applies the inbox itself, so a producer far ahead of the
// workers shares their work.
const inboxSize = 256

// sealed is set in enq when the queue shuts down: no push claims a cell
// after it, so a shutdown knows every call it has to wait for.
const sealed = 1 << 63

// push hands e to the inbox, or returns false if the inbox is full or
// sealed.
func (b *inbox[E]) push(e E, hash uint64) bool {
	for {
		pos := b.enq.Load()
		if pos&sealed != 0 {
			return false
		}
		// Signed: pos may be stale by the time freed is read, even below
		// it, which is not a full inbox; the CAS below then fails.
		if int64(pos-b.freed.Load()) >= int64(len(b.cells)) {
			return false // the cell still holds an item from the last lap
		}
		if b.enq.CompareAndSwap(pos, pos+1) {
			c := &b.cells[pos&uint64(len(b.cells)-1)]
			c.entry, c.hash = e, hash
			c.seq.Store(pos + 1)
			return true
		}
		// Another goroutine claimed pos first: try the next position.
	}
}

// claimed returns the next position to claim: every push that has
// claimed a cell so far claimed one below it.
func (b *inbox[E]) claimed() uint64 { return b.enq.Load() &^ sealed }

// seal makes every later push fail.
func (b *inbox[E]) seal() { b.enq.Or(sealed) }

// settled reports whether every call claimed so far has been popped: none
// is waiting, and none is being filled in. The caller holds the queue's
// lock.
func (b *inbox[E]) settled() bool { return b.deq == b.claimed() }

// pop takes the oldest entry that is ready. It reports false when the
// inbox is empty, or when the oldest position is claimed but not yet
// filled; the goroutine filling it checks afterwards whether anyone is
// waiting (see Queue.wakeAppliers), so it is never stranded. The caller
// holds the queue's lock, and calls release when it has popped what it
// wanted.
func (b *inbox[E]) pop() (e E, hash uint64, ok bool) {
	c := &b.cells[b.deq&uint64(len(b.cells)-1)]
	if c.seq.Load() != b.deq+1 {
		return e, 0, false
	}
	e, hash = c.entry, c.hash
	var zero E
	c.entry = zero
	b.deq++
	return e, hash, true
}

// release hands the cells popped so far back to the pushers once they
// number releaseEvery or more; the caller holds the queue's lock. The
// store is an atomic write, and a lock holder that drains one call at a
// time (a lone worker retrying items with AddRateLimited) would otherwise
// pay it for every call. Cells popped and not yet handed back only make
// the inbox look fuller than it is, by fewer than releaseEvery cells.
func (b *inbox[E]) release() {
	if b.deq-b.freed.Load() >= releaseEvery {
		b.freed.Store(b.deq)
	}
}

// releaseEvery is how many popped cells release lets build up; small
// beside inboxSize, so that the inbox's usable size hardly shrinks.
const releaseEvery = inboxSize / 8
