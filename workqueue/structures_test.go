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

func TestDeadlineHeapOrdersByDeadlineThenSeq(t *testing.T) {
	var h deadlineHeap[int]
	r := rand.New(rand.NewPCG(5, 6))
	var want []deadline[int]
	for seq := range uint64(1000) {
		d := deadline[int]{at: time.Duration(r.IntN(50)), seq: seq, item: int(seq)}
		h.push(d)
		want = append(want, d)
	}
	// Drop odd items through filter, as compaction does.
	h.filter(func(d *deadline[int]) bool { return d.item%2 == 0 })
	want = slices.DeleteFunc(want, func(d deadline[int]) bool { return d.item%2 != 0 })
	slices.SortFunc(want, func(a, b deadline[int]) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	for i, w := range want {
		if got := h.pop(); got != w {
			t.Fatalf("pop %d = %+v, want %+v", i, got, w)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d entries left", len(h))
	}
}

func TestInboxConcurrentPushes(t *testing.T) {
	var b inbox[doneCall[int]]
	var mu sync.Mutex // stands in for the queue's lock
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
			if h != uint64(d.item) || d.takes != ^uint64(d.item) {
				t.Errorf("item %d came with hash %d and takes %d", d.item, h, d.takes)
			}
			seen[d.item]++
		}
	}
	const producers, each = 8, 5000
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				item := p*each + i
				for !b.push(doneCall[int]{item, ^uint64(item)}, uint64(item)) {
					drain() // full: what Done does, take the lock
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
