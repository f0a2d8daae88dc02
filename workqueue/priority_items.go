package workqueue

import "time"

// priorityItems holds what a PriorityQueue keeps per item while it holds
// the item (queued, processing or waiting): one record each, in a slice,
// found through a compact hash index.
//
// A record stays at its index in the slice, its id, while its item is
// held, so the ready set links records by id and a delay slot names its
// item's record: each item and its state are stored once. The index is
// an open-addressing table with linear probing, like table (see there
// for why not a Go map), kept at most half full; its slots are 8 bytes,
// a hash and a record id, where table's would hold the item and all of
// its state, in twice as many slots as there are items.
//
// Free records are linked in a list and reused, most recently freed
// first, which keeps the slice as long as the most items held at once.
// A held record cannot move, so the slice, like the index, shrinks only
// when the queue holds no item, after bursts (shrinkPolicy).
type priorityItems[T comparable] struct {
	recs   []priorityItem[T]
	free   int32       // a free record's id + 1, linked through inSub.next likewise; 0 when none
	index  []indexSlot // len is zero or a power of two, at most half full
	n      int         // items held
	shrink struct{ recs, index shrinkPolicy }
}

// priorityItem is a PriorityQueue's record of one item. The flags are
// Queue's (dirty, processing, waiting), with the same rules. An item is
// in the ready set while it is dirty and not processing; readyAt, inSub,
// inAge and sub are the ready set's then (see readySet), and mean
// nothing otherwise. slot names its delay slot while it is waiting; the
// slot holds the deadlines it waits for (waitState).
type priorityItem[T comparable] struct {
	item    T
	prio    int           // pending priority; the one handed out while only processing
	reasons Reasons       // pending reasons
	readyAt time.Duration // when it became ready
	inSub   link          // in its subqueue; in the free list, inSub.next
	inAge   link          // in the age list, while not overdue
	sub     int32         // its subqueue
	flow    int32         // its flow, in the ready set's flow table
	slot    uint32
	flags   uint8
}

// indexSlot is one slot of the index.
type indexSlot struct {
	hash uint32 // the low half of the item's hash, which places it in any index up to 2^32 slots
	ref  uint32 // the item's record id + 1; 0 for an empty slot
}

// minRecords is the fewest records the slice shrinks to.
const minRecords = 64

// at returns record id, as find or upsert returned it. The pointer is
// valid until an item is next added or removed.
func (s *priorityItems[T]) at(id int32) *priorityItem[T] { return &s.recs[id] }

// find returns the record id of item, whose hash is h, or none.
func (s *priorityItems[T]) find(h uint64, item T) int32 {
	if len(s.index) == 0 {
		return none
	}
	mask, h32 := uint32(len(s.index)-1), uint32(h)
	for i := h32 & mask; ; i = (i + 1) & mask {
		e := s.index[i]
		if e.ref == 0 {
			return none
		}
		if e.hash == h32 && s.recs[e.ref-1].item == item {
			return int32(e.ref - 1)
		}
	}
}

// upsert returns the record id of item, whose hash is h, adding a record
// with no flag if item is not held.
func (s *priorityItems[T]) upsert(h uint64, item T) int32 {
	h32 := uint32(h)
	if len(s.index) > 0 {
		mask := uint32(len(s.index) - 1)
		for i := h32 & mask; ; i = (i + 1) & mask {
			e := &s.index[i]
			if e.ref == 0 {
				if 2*(s.n+1) <= len(s.index) {
					return s.insertAt(e, h32, item)
				}
				break // full enough to grow first
			}
			if e.hash == h32 && s.recs[e.ref-1].item == item {
				return int32(e.ref - 1)
			}
		}
	}
	s.resizeIndex(max(minTable, 2*len(s.index)))
	mask := uint32(len(s.index) - 1)
	i := h32 & mask
	for s.index[i].ref != 0 {
		i = (i + 1) & mask
	}
	return s.insertAt(&s.index[i], h32, item)
}

func (s *priorityItems[T]) insertAt(e *indexSlot, h32 uint32, item T) int32 {
	var id int32
	if s.free != 0 {
		id = s.free - 1
		s.free = s.recs[id].inSub.next
		s.recs[id].item = item // the rest was cleared when it was freed
	} else {
		id = int32(len(s.recs))
		s.recs = append(s.recs, priorityItem[T]{item: item})
	}
	*e = indexSlot{hash: h32, ref: uint32(id) + 1}
	s.n++
	s.shrink.recs.grew(s.n)
	s.shrink.index.grew(s.n)
	return id
}

// remove forgets item id, whose hash is h: its record is cleared, so
// that the queue holds no reference to the item, and freed.
func (s *priorityItems[T]) remove(id int32, h uint64) {
	mask := uint32(len(s.index) - 1)
	i := uint32(h) & mask
	for s.index[i].ref != uint32(id)+1 {
		i = (i + 1) & mask
	}
	s.deleteAt(i)
	s.recs[id] = priorityItem[T]{inSub: link{next: s.free}}
	s.free = id + 1
	if s.n--; s.n > 0 {
		return
	}
	// Every record is free: start again from the first, with half the
	// room if the bursts are over.
	s.recs, s.free = s.recs[:0], 0
	if s.shrink.recs.emptied(cap(s.recs), minRecords) {
		s.recs = make([]priorityItem[T], 0, cap(s.recs)/2)
	}
	if s.shrink.index.emptied(len(s.index), minTable) {
		s.resizeIndex(len(s.index) / 2)
	}
}

// deleteAt empties index slot i, moving later slots of the same probe run
// back so that no lookup ever has to step over a hole (see table).
func (s *priorityItems[T]) deleteAt(i uint32) {
	mask := uint32(len(s.index) - 1)
	for j := (i + 1) & mask; s.index[j].ref != 0; j = (j + 1) & mask {
		home := s.index[j].hash & mask
		if (j-home)&mask >= (j-i)&mask {
			s.index[i] = s.index[j]
			i = j
		}
	}
	s.index[i] = indexSlot{}
}

func (s *priorityItems[T]) resizeIndex(size int) {
	old := s.index
	s.index = make([]indexSlot, size)
	mask := uint32(size - 1)
	for _, e := range old {
		if e.ref == 0 {
			continue
		}
		i := e.hash & mask
		for s.index[i].ref != 0 {
			i = (i + 1) & mask
		}
		s.index[i] = e
	}
}
