package workqueue

import "time"

// delayHeap holds the items waiting for an AddAfter deadline: a binary
// min-heap of deadlines, written for its element type rather than through
// container/heap, whose interface{} Push and Pop would allocate for every
// entry.
//
// A heap entry does not hold its item: it points to a slot that does,
// with what the queue keeps about a waiting item (P: the item and its
// hash for a Queue, the item's record for a PriorityQueue), and the
// item's state in the queue names that slot. When an item
// stops waiting before its deadline (a plain Add makes it ready, or an
// earlier deadline replaces the old one), cancel clears the slot at once,
// so the queue lets go of the item, and leaves the heap entry in place:
// it is dropped when it reaches the top, or when too many dead entries
// pile up. Finding and removing the entry itself would mean keeping heap
// positions in the table and updating them on every swap. A slot is
// reused only after its entry has left the heap, so an entry's slot is
// never another item's.
type delayHeap[P any] struct {
	entries []deadline
	slots   []delaySlot[P]
	free    []uint32 // slots whose entries have left the heap
	live    int      // slots holding an item
	seq     uint64   // last deadline.seq handed out
}

// deadline is one heap entry: the item in slot becomes ready at at (time
// since the queue's epoch), unless the slot was cancelled. seq breaks
// ties so that items with equal deadlines become ready in the order they
// were added.
type deadline struct {
	at   time.Duration
	seq  uint64
	slot uint32
}

func (d *deadline) before(o *deadline) bool {
	return d.at < o.at || (d.at == o.at && d.seq < o.seq)
}

// delaySlot holds a waiting item, val; live is false once the slot is
// cancelled or empty.
type delaySlot[P any] struct {
	val  P
	at   time.Duration
	live bool
}

// add makes the item that val describes wait until at. It returns its
// slot and reports whether at is now the earliest deadline.
func (h *delayHeap[P]) add(val P, at time.Duration) (slot uint32, earliest bool) {
	// Keep dead entries from piling up (an item that keeps being added
	// directly and delayed again) while paying for the rebuild at most
	// once per as many adds as the heap holds live entries.
	if len(h.entries) >= 64 && len(h.entries) >= 2*h.live {
		h.compact()
	}
	if n := len(h.free); n > 0 {
		slot = h.free[n-1]
		h.free = h.free[:n-1]
	} else {
		slot = uint32(len(h.slots))
		h.slots = append(h.slots, delaySlot[P]{})
	}
	h.slots[slot] = delaySlot[P]{val: val, at: at, live: true}
	h.live++
	h.seq++
	h.push(deadline{at: at, seq: h.seq, slot: slot})
	return slot, h.entries[0].slot == slot
}

// at returns the deadline of the live slot.
func (h *delayHeap[P]) at(slot uint32) time.Duration { return h.slots[slot].at }

// val returns what the live slot holds about its item.
func (h *delayHeap[P]) val(slot uint32) *P { return &h.slots[slot].val }

// cancel ends the wait in a live slot and lets go of its item; its heap
// entry is now dead.
func (h *delayHeap[P]) cancel(slot uint32) {
	h.slots[slot] = delaySlot[P]{}
	h.live--
}

// popDue removes the earliest entry if its deadline is not after now and
// returns its slot, which the caller must cancel if it is live and then
// release. Otherwise it returns how long until the earliest deadline, or
// reports that the heap is empty.
func (h *delayHeap[P]) popDue(now time.Duration) (s *delaySlot[P], slot uint32, next time.Duration, ok bool) {
	if len(h.entries) == 0 {
		return nil, 0, 0, false
	}
	if at := h.entries[0].at; at > now {
		return nil, 0, at - now, true
	}
	slot = h.pop().slot
	return &h.slots[slot], slot, 0, true
}

// release makes a slot whose entry has left the heap free for reuse.
func (h *delayHeap[P]) release(slot uint32) { h.free = append(h.free, slot) }

func (h *delayHeap[P]) push(d deadline) {
	h.entries = append(h.entries, d)
	s := h.entries
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].before(&s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// pop removes the earliest entry; the heap must not be empty.
func (h *delayHeap[P]) pop() deadline {
	s := h.entries
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	h.entries = s[:last]
	h.down(0)
	return top
}

func (h *delayHeap[P]) down(i int) {
	s := h.entries
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(s) && s[c].before(&s[least]) {
				least = c
			}
		}
		if least == i {
			return
		}
		s[i], s[least] = s[least], s[i]
		i = least
	}
}

// compact drops the dead entries, freeing their slots, and restores the
// heap order, in linear time.
func (h *delayHeap[P]) compact() {
	s := h.entries
	n := 0
	for _, d := range s {
		if h.slots[d.slot].live {
			s[n] = d
			n++
		} else {
			h.release(d.slot)
		}
	}
	h.entries = s[:n]
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// drop empties the heap, at shutdown, calling stopWaiting with what each
// live slot held about its item.
func (h *delayHeap[P]) drop(stopWaiting func(val P)) {
	for i := range h.slots {
		if s := &h.slots[i]; s.live {
			stopWaiting(s.val)
		}
	}
	*h = delayHeap[P]{}
}
