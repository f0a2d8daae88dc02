package workqueue

import "sync/atomic"

// doneInbox carries Done calls to whichever goroutine next holds the
// queue's lock, so that a worker's Done does not take the lock itself;
// with Get's lock-free ring (see readyRing), a busy worker takes the lock
// about once per batch of items instead of twice per item.
//
// It is a bounded ring in which any number of goroutines push and only
// the lock holder drains (D. Vyukov's bounded MPMC queue, used with one
// consumer). Each cell's sequence number says whose turn it is: seq == pos
// means free for the producer of position pos, seq == pos+1 means filled
// and ready to drain.
type doneInbox[T any] struct {
	// enq and deq have cache lines of their own: workers write enq
	// without the lock, and sharing a line with the fields the lock
	// guards would slow every lock holder down. The cells are an array
	// so that pushing reads no slice header next to deq.
	_     [cacheLine]byte
	enq   atomic.Uint64 // next position to claim; any goroutine
	_     [cacheLine - 8]byte
	deq   uint64 // next position to drain; lock holder only
	_     [cacheLine - 8]byte
	cells [inboxSize]doneCell[T]
	_     [cacheLine]byte
}

const cacheLine = 64

type doneCell[T any] struct {
	seq   atomic.Uint64
	item  T
	hash  uint64 // computed by Done, before the lock
	takes uint64 // readyRing.takes when Done was called; see Queue.applyDones
}

// inboxSize bounds the Done calls in flight; beyond it Done takes the
// lock. A few per worker is plenty, since each Get drains the inbox.
const inboxSize = 256

func (b *doneInbox[T]) init() {
	for i := range b.cells {
		b.cells[i].seq.Store(uint64(i))
	}
}

// push hands item to the inbox, or returns false if the inbox is full.
func (b *doneInbox[T]) push(item T, hash, takes uint64) bool {
	mask := uint64(len(b.cells) - 1)
	for {
		pos := b.enq.Load()
		c := &b.cells[pos&mask]
		switch seq := c.seq.Load(); {
		case seq == pos:
			if b.enq.CompareAndSwap(pos, pos+1) {
				c.item, c.hash, c.takes = item, hash, takes
				c.seq.Store(pos + 1)
				return true
			}
		case seq < pos:
			return false // the cell still holds an item from the last lap
		}
		// Another goroutine claimed pos first: try the next position.
	}
}

// pop takes the oldest item that is ready. It reports false when the
// inbox is empty, or when the oldest position is claimed but not yet
// filled; the goroutine filling it checks afterwards whether anyone is
// waiting (see Queue.Done), so it is never stranded. The caller holds the
// queue's lock.
func (b *doneInbox[T]) pop() (item T, hash, takes uint64, ok bool) {
	c := &b.cells[b.deq&uint64(len(b.cells)-1)]
	if c.seq.Load() != b.deq+1 {
		return item, 0, 0, false
	}
	item, hash, takes = c.item, c.hash, c.takes
	var zero T
	c.item = zero
	c.seq.Store(b.deq + uint64(len(b.cells)))
	b.deq++
	return item, hash, takes, true
}
