package workqueue

import "time"

// priorityItems holds what a PriorityQueue keeps per item while it holds
// the item (queued, processing or waiting): one record each, in a slice,
// found through a compact hash index.
//
// A record stays at its index in the slice, its id, while its item is
// held, so the ready set links records by id and a delay slot names its
// item's record: each item and its state are stored once. The index is a
// probeTable, like table's, whose slots are 8 bytes: the key alone, with
// the record id + 1 in its high half (indexKey). table's slots would hold
// the item and all of its state, in twice as many slots as there are
// items.
//
// Free records are linked in a list and reused, most recently freed
// first, which keeps the slice as long as the most items held at once.
// A held record cannot move, so the slice, like the index, shrinks only
// when the queue holds no item, after bursts (shrinkPolicy).
type priorityItems[T comparable] struct {
	recs   []priorityItem[T]
	free   int32                // a free record's id + 1, linked through inSub.next likewise; 0 when none
	index  probeTable[struct{}] // index.n is the number of items held
	shrink shrinkPolicy         // recs'
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

// indexKey is the index's key of record id for an item whose hash is h:
// the low half of the hash, which places it in any index up to 2^32
// slots, and id + 1, so that the key is never 0.
func indexKey(id int32, h uint64) uint64 { return uint64(id+1)<<32 | uint64(uint32(h)) }

// indexID returns the record id in an index key.
func indexID(key uint64) int32 { return int32(key>>32) - 1 }

// minRecords is the fewest records the slice shrinks to.
const minRecords = 64

// at returns record id, as find or upsert returned it. The pointer is
// valid until an item is next added or removed.
func (s *priorityItems[T]) at(id int32) *priorityItem[T] { return &s.recs[id] }

// locate returns the index slot of item, whose hash is h, or, if item
// is not held, the negative ^j for the empty slot j where it would go
// (see probe).
func (s *priorityItems[T]) locate(h uint64, item T) (i int) {
	for i = int(h); ; i++ {
		if i = s.index.probe(i, h); i < 0 || s.recs[indexID(s.index.slots[i].key)].item == item {
			return
		}
	}
}

// find returns the record id of item, whose hash is h, or none.
func (s *priorityItems[T]) find(h uint64, item T) int32 {
	for i := int(h); ; i++ {
		if i = s.index.probe(i, h); i < 0 {
			return none
		}
		if id := indexID(s.index.slots[i].key); s.recs[id].item == item {
			return id
		}
	}
}

// upsert returns the record id of item, whose hash is h, adding a record
// with no flag if item is not held.
func (s *priorityItems[T]) upsert(h uint64, item T) int32 {
	i := s.locate(h, item)
	if i >= 0 {
		return indexID(s.index.slots[i].key)
	}
	var id int32
	if s.free != 0 {
		id = s.free - 1
		s.free = s.recs[id].inSub.next
		s.recs[id].item = item // the rest was cleared when it was freed
	} else {
		id = int32(len(s.recs))
		s.recs = append(s.recs, priorityItem[T]{item: item})
	}
	key := indexKey(id, h)
	s.index.claim(s.index.room(i, key), key)
	s.shrink.grew(s.index.n)
	return id
}

// remove forgets item id, whose hash is h: its record is cleared, so
// that the queue holds no reference to the item, and freed.
func (s *priorityItems[T]) remove(id int32, h uint64) {
	key := indexKey(id, h)
	i := s.index.probe(int(h), h)
	for s.index.slots[i].key != key {
		i = s.index.probe(i+1, h)
	}
	s.index.deleteAt(i)
	s.recs[id] = priorityItem[T]{inSub: link{next: s.free}}
	s.free = id + 1
	if s.index.n > 0 {
		return
	}
	// Every record is free: start again from the first, with half the
	// room if the bursts are over.
	s.recs, s.free = s.recs[:0], 0
	if s.shrink.emptied(cap(s.recs), minRecords) {
		s.recs = make([]priorityItem[T], 0, cap(s.recs)/2)
	}
}
