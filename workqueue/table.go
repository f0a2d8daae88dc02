package workqueue

// table maps items to values: the queue's per-item state, the failure
// counts of the per-item rate limiters, and a PriorityQueue's flow names.
// It is an open-addressing hash table (probeTable) keyed by the items'
// hashes, each slot holding its item and value, used instead of a Go map
// because:
//   - callers hash the item (hashItem) before taking their lock, so the
//     lock is held only for the probe;
//   - every operation probes once: Add finds or inserts in one pass where
//     a map needs a lookup and then an assignment;
//   - deletion shifts entries back instead of leaving tombstones, so a
//     queue whose items churn keeps short probes;
//   - it gives memory back when a burst is over.
type table[T comparable, V any] struct {
	probeTable[tableEntry[T, V]]
}

// tableEntry is what a table's slot holds besides its key.
type tableEntry[T comparable, V any] struct {
	item  T
	value V
}

// at returns the value in slot i, as found by find.
func (t *table[T, V]) at(i int) *V { return &t.slots[i].e.value }

// find returns the index of item's slot, or, if item is not there, the
// negative ^j for the empty slot j where it would go (see probe).
func (t *table[T, V]) find(h uint64, item T) (i int) {
	// Written to stay within the compiler's inlining budget (two ifs
	// cost less than one ||): Get and Done find their items with no call.
	for i = int(h); ; i++ {
		if i = t.probe(i, h); i < 0 {
			return
		}
		if t.slots[i].e.item == item {
			return
		}
	}
}

// upsert returns the value of item, inserting a zero value if item is not
// there. The pointer is valid until the table is next changed.
func (t *table[T, V]) upsert(h uint64, item T) *V {
	i := t.find(h, item)
	if i >= 0 {
		return &t.slots[i].e.value
	}
	s := t.claim(t.room(i, h), h)
	s.e.item = item
	return &s.e.value
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
