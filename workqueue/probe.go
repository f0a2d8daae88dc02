package workqueue

import "hash/maphash"

// probeTable is the open-addressing hash table under every item lookup of
// the package: table's (Queue's items, the limiters' failure counts, a
// PriorityQueue's flow names) and priorityItems' index. It probes
// linearly and deletes by moving later entries back; see table for why
// not a Go map. Its users differ only in what a slot holds besides its
// key (E) and in how they tell their item among the slots whose hash
// matches (probe).
type probeTable[E any] struct {
	slots  []probeSlot[E] // len is zero or a power of two, at most half full
	n      int
	shrink shrinkPolicy
}

// probeSlot is one slot. key is 0 for an empty slot, and otherwise has
// in its low half the low half of the item's hash, which places the slot
// (its home is key & mask) and which probe compares before its caller
// compares items. E comes first so that an empty E adds no padding: the
// priority index's slots are 8 bytes.
type probeSlot[E any] struct {
	e   E
	key uint64
}

// minTable is the smallest table; below it shrinking is not worth a copy.
const minTable = 16

// hashItem returns item's hash for a table, never 0 so that it is a valid
// key. The low bits pick the home slot and are left as they are.
func hashItem[T comparable](seed maphash.Seed, item T) uint64 {
	return maphash.Comparable(seed, item) | 1<<63
}

// probe returns, from probe position i on, the first slot whose key has
// h's low half, or ^j if the empty slot j comes first, where an item
// with hash h would go (^0 if there are no slots: room grows the table
// first). A lookup probes from h, the item's home, and on past each slot
// that holds another item; probe is small enough to be inlined into it.
func (t *probeTable[E]) probe(i int, h uint64) int {
	mask := len(t.slots) - 1
	if mask < 0 {
		return ^0
	}
	for {
		i &= mask
		k := t.slots[i].key
		if k == 0 {
			return ^i
		}
		if uint32(k) == uint32(h) {
			return i
		}
		i++
	}
}

// room returns the empty slot for key, given miss, what probe returned
// for it: ^miss, unless one more entry would fill more than half of the
// table, which it then doubles first.
func (t *probeTable[E]) room(miss int, key uint64) int {
	if 2*(t.n+1) > len(t.slots) {
		return t.grow(key)
	}
	return ^miss
}

// grow doubles the table and returns the empty slot for key.
func (t *probeTable[E]) grow(key uint64) int {
	t.resize(max(minTable, 2*len(t.slots)))
	return t.vacancy(key)
}

// claim gives key the empty slot i that room returned, and returns the
// slot, whose E is zero. Apart from room, so that both are small enough
// to be inlined: inserting an item costs no call unless the table grows.
func (t *probeTable[E]) claim(i int, key uint64) *probeSlot[E] {
	s := &t.slots[i]
	s.key = key
	t.n++
	t.shrink.grew(t.n)
	return s
}

// vacancy returns the first empty slot of key's probe run.
func (t *probeTable[E]) vacancy(key uint64) int {
	mask := len(t.slots) - 1
	i := int(key) & mask
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	return i
}

// deleteAt empties slot i, moving later entries of the same probe run
// back so that no lookup ever has to step over a hole, and halves the
// table when it empties after bursts (shrinkPolicy).
func (t *probeTable[E]) deleteAt(i int) {
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		home := int(t.slots[j].key) & mask
		// The entry at j may fill hole i unless its home lies cyclically
		// in (i, j], in which case moving it would put it before its home.
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = probeSlot[E]{}
	t.n--
	if t.n == 0 && t.shrink.emptied(len(t.slots), minTable) {
		t.resize(len(t.slots) / 2)
	}
}

// resize moves the entries into a new table of size slots.
func (t *probeTable[E]) resize(size int) {
	old := t.slots
	t.slots = make([]probeSlot[E], size)
	for k := range old {
		if old[k].key != 0 {
			t.slots[t.vacancy(old[k].key)] = old[k]
		}
	}
}
