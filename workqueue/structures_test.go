package workqueue

import (
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestTableMatchesMap drives the table and a Go map with the same random
// operations, with a key space small enough for long probe runs, and
// checks that they always agree.
func TestTableMatchesMap(t *testing.T) {
	var tab table[int, int]
	model := map[int]int{}
	r := rand.New(rand.NewPCG(1, 2))
	for op := range 200_000 {
		k := r.IntN(300)
		h := hashItem(testSeed, k)
		switch r.IntN(3) {
		case 0:
			*tab.upsert(h, k) += op
			model[k] += op
		case 1:
			if i := tab.find(h, k); i >= 0 {
				tab.deleteAt(i)
			}
			delete(model, k)
		case 2:
			i := tab.find(h, k)
			want, ok := model[k]
			if (i >= 0) != ok || (ok && *tab.at(i) != want) {
				t.Fatalf("op %d: find(%d) disagrees with the map (%v, %v)", op, k, want, ok)
			}
		}
		if tab.n != len(model) {
			t.Fatalf("op %d: table holds %d items, map %d", op, tab.n, len(model))
		}
	}
}

func TestTableShrinksAfterABurst(t *testing.T) {
	var tab table[int, struct{}]
	insert := func(n int) {
		for k := range n {
			tab.upsert(hashItem(testSeed, k), k)
		}
	}
	removeAll := func(n int) {
		for k := range n {
			tab.deleteAt(tab.find(hashItem(testSeed, k), k))
		}
	}
	insert(10_000)
	removeAll(10_000)
	big := len(tab.slots)
	for range 20 * shrinkAfter {
		insert(3)
		removeAll(3)
	}
	if len(tab.slots) >= big/8 {
		t.Fatalf("table still has %d slots (peak %d) after many small bursts", len(tab.slots), big)
	}
	if len(tab.slots) < minTable {
		t.Fatalf("table shrank to %d slots, below %d", len(tab.slots), minTable)
	}
}

func TestFIFOMatchesSlice(t *testing.T) {
	var f fifo[int]
	var model []int
	r := rand.New(rand.NewPCG(3, 4))
	next := 0
	for op := range 100_000 {
		// Push more than pop in bursts so that the ring wraps, grows and shrinks.
		if r.IntN(100) < 50+40*((op/5000)%2) || len(model) == 0 {
			f.push(next, uint64(next))
			model = append(model, next)
			next++
			continue
		}
		e := f.pop()
		if e.item != model[0] || e.hash != uint64(model[0]) {
			t.Fatalf("op %d: pop = %d, want %d", op, e.item, model[0])
		}
		model = model[1:]
		if f.len() != len(model) {
			t.Fatalf("op %d: len = %d, want %d", op, f.len(), len(model))
		}
	}
}

// TestDelayHeapOrdersByDeadlineThenAdd adds items with random deadlines,
// cancels some (which clears their slots at once), compacts, and checks
// that the live ones come out in deadline order, ties in the order they
// were added, and that every slot is released.
func TestDelayHeapOrdersByDeadlineThenAdd(t *testing.T) {
	var h delayHeap[int]
	r := rand.New(rand.NewPCG(5, 6))
	type entry struct {
		at   time.Duration
		item int
	}
	var want []entry
	for item := range 1000 {
		at := time.Duration(r.IntN(50))
		slot, _ := h.add(item, at)
		if item%3 == 0 {
			h.cancel(slot)
			if s := h.slots[slot]; s.live || s.val != 0 {
				t.Fatalf("cancelled slot still holds %+v", s)
			}
			continue
		}
		want = append(want, entry{at, item})
	}
	h.compact()
	if len(h.entries) != len(want) || h.live != len(want) {
		t.Fatalf("after compact: %d entries, %d live; want %d", len(h.entries), h.live, len(want))
	}
	slices.SortStableFunc(want, func(a, b entry) int { return int(a.at - b.at) })
	for i, w := range want {
		s, slot, _, ok := h.popDue(w.at)
		if s == nil || !ok || !s.live || s.val != w.item || s.at != w.at {
			t.Fatalf("pop %d = %+v, want %+v", i, s, w)
		}
		h.cancel(slot)
		h.release(slot)
	}
	if s, _, _, ok := h.popDue(time.Hour); s != nil || ok {
		t.Fatalf("popDue on an empty heap = %+v, %v", s, ok)
	}
	if h.live != 0 || len(h.free) != len(h.slots) {
		t.Fatalf("%d live, %d of %d slots free", h.live, len(h.free), len(h.slots))
	}
}

func TestInboxConcurrentPushes(t *testing.T) {
	var b inbox[[2]int] // an item and its complement, to catch torn entries
	var mu sync.Mutex   // stands in for the queue's lock
	seen := map[int]int{}
	drain := func() {
		mu.Lock()
		defer mu.Unlock()
		for {
			d, h, ok := b.pop()
			if !ok {
				b.release()
				return
			}
			if h != uint64(d[0]) || d[1] != ^d[0] {
				t.Errorf("item %d came with hash %d and complement %d", d[0], h, d[1])
			}
			seen[d[0]]++
		}
	}
	const producers, each = 8, 5000
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				item := p*each + i
				for !b.push([2]int{item, ^item}, uint64(item)) {
					drain() // full: what Add does, take the lock
				}
				if i%64 == 0 {
					drain()
				}
			}
		})
	}
	wg.Wait()
	drain()
	if len(seen) != producers*each {
		t.Fatalf("drained %d distinct items, want %d", len(seen), producers*each)
	}
	for item, n := range seen {
		if n != 1 {
			t.Fatalf("item %d drained %d times", item, n)
		}
	}
}

// TestInboxReleasesCellsInBatches checks that popped cells go back to the
// pushers once releaseEvery of them have built up, and not before: a full
// inbox stays full until then, and then takes that many pushes again. A
// drain that empties the inbox hands everything back.
func TestInboxReleasesCellsInBatches(t *testing.T) {
	var b inbox[int]
	for i := range inboxSize {
		if !b.push(i, 0) {
			t.Fatalf("push %d of an empty inbox failed", i)
		}
	}
	popAndRelease := func(n int) {
		t.Helper()
		for range n {
			if _, _, ok := b.pop(); !ok {
				t.Fatal("pop of a filled cell failed")
			}
		}
		b.release()
	}
	popAndRelease(releaseEvery - 1)
	if b.push(-1, 0) {
		t.Fatalf("push succeeded with %d cells popped and not released", releaseEvery-1)
	}
	popAndRelease(1)
	for i := range releaseEvery {
		if !b.push(i, 0) {
			t.Fatalf("push %d failed after %d cells were released", i, releaseEvery)
		}
	}
	if b.push(-1, 0) {
		t.Fatal("push into a full inbox succeeded")
	}
	// A drain that empties the inbox hands every cell back.
	for _, _, ok := b.pop(); ok; _, _, ok = b.pop() {
	}
	b.release()
	for i := range inboxSize {
		if !b.push(i, 0) {
			t.Fatalf("push %d failed after the inbox was drained", i)
		}
	}
}

// TestReadyRingConcurrentTakes has a lock-holding putter refill the ring
// while takers empty it without the lock, and checks that every item is
// taken exactly once, that each taker sees items in put order, and that
// nextTaken reports the takes in put order.
func TestReadyRingConcurrentTakes(t *testing.T) {
	var r readyRing[int]
	r.init()
	var mu sync.Mutex // stands in for the queue's lock
	const items, takers = 20_000, 6
	var recorded []int
	record := func() { // what the lock holder's sync does
		for {
			item, h, ok := r.nextTaken(r.takes())
			if !ok {
				return
			}
			if h != uint64(item) {
				t.Errorf("item %d recorded with hash %d", item, h)
			}
			recorded = append(recorded, item)
		}
	}
	taken := make([][]int, takers)
	var wg sync.WaitGroup
	finished := make(chan struct{})
	for i := range takers {
		wg.Go(func() {
			for {
				item, _, ok := r.take()
				if ok {
					taken[i] = append(taken[i], item)
					continue
				}
				select {
				case <-finished:
					return
				default:
					runtime.Gosched() // let the putter run, even on one processor
				}
			}
		})
	}
	next := 0
	for next < items {
		mu.Lock()
		record()
		for next < items && r.put(next, uint64(next)) {
			next++
		}
		mu.Unlock()
		runtime.Gosched() // let the takers run, even on one processor
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		mu.Lock()
		record()
		empty := r.drained()
		mu.Unlock()
		if empty {
			break
		}
		if time.Now().After(deadline) {
			close(finished)
			wg.Wait()
			t.Fatalf("the ring never drained: %d put, %d takes recorded", r.enq, r.taken)
		}
		runtime.Gosched()
	}
	close(finished)
	wg.Wait()

	if !slices.Equal(recorded, seq(items)) {
		t.Fatalf("takes recorded out of put order or lost: %d recorded", len(recorded))
	}
	var all []int
	for i, got := range taken {
		if !slices.IsSorted(got) {
			t.Errorf("taker %d saw items out of put order", i)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	if !slices.Equal(all, seq(items)) {
		t.Fatalf("%d items taken, want each of %d exactly once", len(all), items)
	}
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

var testSeed = maphash.MakeSeed()

// TestReadyRingClearsTakesOnceRead checks that clearTaken lets go of the
// item of a recorded take only once its taker has read it, and that a
// later call clears a cell it had to leave.
func TestReadyRingClearsTakesOnceRead(t *testing.T) {
	var r readyRing[*int]
	r.init()
	a, b := new(int), new(int)
	r.put(a, 1)
	r.put(b, 2)
	// A taker claims position 0 and has not yet marked the cell read;
	// another takes position 1 whole.
	r.deq.Store(1)
	if got, _, ok := r.take(); !ok || got != b {
		t.Fatalf("take = %v, %v; want b", got, ok)
	}
	for _, _, ok := r.nextTaken(r.takes()); ok; _, _, ok = r.nextTaken(r.takes()) {
	}
	r.clearTaken()
	if r.cells[0].item != a || r.cells[1].item != nil || r.cleared != 0 {
		t.Fatalf("after the first clear: cells hold %v, %v, cleared %d; want a, nil, 0",
			r.cells[0].item, r.cells[1].item, r.cleared)
	}
	r.cells[0].seq.Store(ringSize) // the first taker has read its item
	r.clearTaken()
	if r.cells[0].item != nil || r.cleared != 2 {
		t.Fatalf("after the second clear: cell 0 holds %v, cleared %d; want nil, 2", r.cells[0].item, r.cleared)
	}
}
