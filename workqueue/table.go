package workqueue

import "hash/maphash"

// table maps items to values: the queue's per-item state, and the
// failure counts of the per-item rate limiters. It is an open-addressing
// hash table with linear probing, used instead of a Go map because:
//   - callers hash the item (hashItem) before taking their lock, so the
//     lock is held only for the probe;
//   - every operation probes once: Add finds or inserts in one pass where
//     a map needs a lookup and then an assignment;
//   - deletion shifts entries back instead of leaving tombstones, so a
//     queue whose items churn keeps short probes;
//   - it gives memory back when a burst is over.
type table[T comparable, V any] struct {
	slots  []tableSlot[T, V] // len is zero or a power of two, at most half full
	n      int
	shrink shrinkPolicy
}

type tableSlot[T comparable, V any] struct {
	hash  uint64 // 0 for an empty slot; see hash
	item  T
	value V
}

// minTable is the smallest table; below it shrinking is not worth a copy.
const minTable = 16

// at returns the value in slot i, as found by find.
func (t *table[T, V]) at(i int) *V { return &t.slots[i].value }

// hashItem returns item's hash for a table, never 0 so that 0 can mark an
// empty slot. The low bits pick the home slot and are left as they are.
func hashItem[T comparable](seed maphash.Seed, item T) uint64 {
	return maphash.Comparable(seed, item) | 1<<63
}

// find returns the index of item's slot, or -1.
func (t *table[T, V]) find(h uint64, item T) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			return -1
		}
		if s.hash == h && s.item == item {
			return int(i)
		}
	}
}

// upsert returns the value of item, inserting a zero value if item is not
// there. The pointer is valid until the table is next changed.
func (t *table[T, V]) upsert(h uint64, item T) *V {
	if len(t.slots) > 0 {
		mask := uint64(len(t.slots) - 1)
		for i := h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.hash == 0 {
				if 2*(t.n+1) <= len(t.slots) {
					return t.insertAt(s, h, item)
				}
				break // full enough to grow first
			}
			if s.hash == h && s.item == item {
				return &s.value
			}
		}
	}
	t.resize(max(minTable, 2*len(t.slots)))
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	return t.insertAt(&t.slots[i], h, item)
}

func (t *table[T, V]) insertAt(s *tableSlot[T, V], h uint64, item T) *V {
	s.hash, s.item = h, item
	t.n++
	t.shrink.grew(t.n)
	return &s.value
}

// deleteAt removes the item in slot i, moving later entries of the same
// probe run back so that no lookup ever has to step over a hole.
func (t *table[T, V]) deleteAt(i int) {
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].hash != 0; j = (j + 1) & mask {
		home := int(t.slots[j].hash) & mask
		// The entry at j may fill hole i unless its home lies cyclically
		// in (i, j], in which case moving it would put it before its home.
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = tableSlot[T, V]{}
	t.n--
	if t.n == 0 && t.shrink.emptied(len(t.slots), minTable) {
		t.resize(len(t.slots) / 2)
	}
}

func (t *table[T, V]) resize(size int) {
	old := t.slots
	t.slots = make([]tableSlot[T, V], size)
	mask := uint64(size - 1)
	for k := range old {
		if old[k].hash == 0 {
			continue
		}
		i := old[k].hash & mask
		for t.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = old[k]
	}
}

// shrinkPolicy decides when a buffer that grew for a burst may shrink.
// Queues fill and drain in bursts as the scheduler switches between
// producers and workers, so shrinking at the first quiet moment would
// reallocate on every burst. A buffer is halved only after it has emptied
// shrinkAfter times in a row without its contents reaching an eighth of
// its size; once halved, it is still at least four times the largest of
// those peaks.
type shrinkPolicy struct {
	peak, lowEmpties int
}

const shrinkAfter = 64

// grew records that the buffer now holds n entries.
func (p *shrinkPolicy) grew(n int) { p.peak = max(p.peak, n) }

// emptied records that the buffer of size size became empty and reports
// whether it should be halved now.
func (p *shrinkPolicy) emptied(size, minSize int) bool {
	low := size > minSize && p.peak <= size/8
	p.peak = 0
	if !low {
		p.lowEmpties = 0
		return false
	}
	p.lowEmpties++
	if p.lowEmpties < shrinkAfter {
		return false
	}
	p.lowEmpties = 0
	return true
}
