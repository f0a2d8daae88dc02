package workqueue

import "sync/atomic"

// readyRing holds a few of the oldest ready items where a worker's Get
// can take one without the queue's lock. A Get that takes the lock moves
// a batch of ready items from the FIFO into the ring, and the next Gets,
// of any worker, take them with one compare-and-swap each. Get then takes
// the lock once per batch instead of once per item, so workers seldom
// queue behind each other or behind the producer: with more goroutines
// than cores, a waiter on a busy lock parks, and the park and wake-up
// cost more than the queue's own work.
//
// A take is not recorded in the queue's item table when it happens; a
// taken item still reads as ready (dirty) until a lock holder records the
// takes (Queue.recordTakes). Whoever holds the lock records them before it
// relies on the state of a ready item (Queue.state): an Add that then
// finds the item not taken merges into it, since the take had not
// happened when the Add looked.
//
// It is a bounded ring (D. Vyukov's bounded MPMC queue, with the lock
// holder as the one producer): each cell's sequence number says whose
// turn it is. seq == pos means free for the put of position pos, seq ==
// pos+1 means filled and ready to take, and seq == pos+len(cells) means
// taken and read.
type readyRing[T any] struct {
	// Takers write deq; the lock holder writes the rest. Each side
	// has a cache line of its own, and the cells are an array rather than
	// a slice, so that neither side reads a slice header on the other's
	// line.
	_       [cacheLine]byte
	deq     atomic.Uint64 // next position to take; any goroutine
	_       [cacheLine - 8]byte
	enq     uint64 // next position to put; lock holder only
	taken   uint64 // takes below it are recorded; lock holder only
	cleared uint64 // recorded takes below it hold no item; lock holder only
	_       [cacheLine - 24]byte
	cells   [ringSize]ringCell[T]
	_       [cacheLine]byte
}

type ringCell[T any] struct {
	seq  atomic.Uint64
	item T
	hash uint64
}

// ringSize is the most items the ring holds; a power of two. Bigger
// batches save little more lock traffic.
const ringSize = 64

// ringLow is how few items left make a take report the ring as low, and
// ringLowEvery how often a take looks.
const (
	ringLow      = ringSize / 4
	ringLowEvery = 8
)

func (r *readyRing[T]) init() {
	for i := range r.cells {
		r.cells[i].seq.Store(uint64(i))
	}
}

// len returns the number of items put and not yet taken. Takes may make
// it smaller at any time; only the lock holder makes it larger.
func (r *readyRing[T]) len() int { return int(r.enq - r.deq.Load()) }

// drained reports whether every item put has been taken and its take
// recorded. The lock is held.
func (r *readyRing[T]) drained() bool { return r.taken == r.enq }

// takes returns the position of the next take: every take so far is
// below it.
func (r *readyRing[T]) takes() uint64 { return r.deq.Load() }

// put adds item at the tail, or reports false if the ring is full: every
// cell holds an item not yet taken, or one whose take is not recorded, or
// one its taker is still reading. The lock is held.
func (r *readyRing[T]) put(item T, hash uint64) bool {
	c := &r.cells[r.enq&uint64(len(r.cells)-1)]
	if r.enq-r.taken >= uint64(len(r.cells)) || c.seq.Load() != r.enq {
		return false
	}
	c.item, c.hash = item, hash
	c.seq.Store(r.enq + 1)
	r.enq++
	return true
}

// take removes the oldest item, or reports false if the ring is empty.
// It also reports whether fewer than ringLow items were left after it.
// Any goroutine may call it, with or without the lock.
func (r *readyRing[T]) take() (item T, low, ok bool) {
	mask := uint64(len(r.cells) - 1)
	for {
		pos := r.deq.Load()
		c := &r.cells[pos&mask]
		switch seq := c.seq.Load(); {
		case seq == pos+1:
			if r.deq.CompareAndSwap(pos, pos+1) {
				item = c.item
				c.seq.Store(pos + uint64(len(r.cells)))
				// Only every ringLowEvery-th take asks: while the
				// producer is slower than the workers the ring stays
				// low, and each ask costs the lock's cache line.
				if pos%ringLowEvery == 0 {
					ahead := pos + ringLow
					low = r.cells[ahead&mask].seq.Load() != ahead+1
				}
				return item, low, true
			}
		case seq == pos:
			return item, false, false // nothing put at pos yet
		}
		// Another goroutine took pos first: try the next position.
	}
}

// nextTaken returns the oldest item taken before position end whose take
// is not recorded yet, and records it, or reports false if there is none.
// The lock is held.
func (r *readyRing[T]) nextTaken(end uint64) (item T, hash uint64, ok bool) {
	if r.taken >= end {
		return item, 0, false
	}
	pos := r.taken
	r.taken++
	// The cell still holds the item: only the lock holder writes cells,
	// and neither put nor clearTaken touches it before the take is
	// recorded.
	c := &r.cells[pos&uint64(len(r.cells)-1)]
	return c.item, c.hash, true
}

// clearTaken lets go of the items of recorded takes, so that the ring
// holds no item a worker has taken: a worker that then calls Done leaves
// no reference to it behind. A cell whose taker has not finished reading
// it (it has claimed the position but not yet marked the cell read) is
// left for a later call; the worker's own Done is one, since its take
// was read before Get returned. The lock is held.
func (r *readyRing[T]) clearTaken() {
	size := uint64(len(r.cells))
	from := r.cleared
	if r.enq > size {
		from = max(from, r.enq-size) // older cells hold newer puts since
	}
	r.cleared = r.taken
	var zero T
	for pos := from; pos < r.taken; pos++ {
		c := &r.cells[pos&(size-1)]
		if c.seq.Load() != pos+size {
			r.cleared = min(r.cleared, pos) // its taker is still reading
			continue
		}
		c.item = zero
	}
}
