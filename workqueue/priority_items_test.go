package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestPriorityItemsMatchMap drives the priority queue's records and a Go
// map with the same random operations, with a key space small enough for
// long probe runs and emptying now and then, and checks that they always
// agree, that a held item keeps its record, and that the records never
// outnumber the most items held at once.
func TestPriorityItemsMatchMap(t *testing.T) {
	var s priorityItems[int]
	model := map[int]int32{} // key -> record id
	r := rand.New(rand.NewPCG(3, 4))
	peak := 0
	for op := range 200_000 {
		k := r.IntN(300)
		h := hashItem(testSeed, k)
		switch r.IntN(3) {
		case 0:
			id := s.upsert(h, k)
			if want, ok := model[k]; ok && id != want {
				t.Fatalf("op %d: upsert(%d) moved its record from %d to %d", op, k, want, id)
			}
			if s.at(id).item != k {
				t.Fatalf("op %d: record %d holds %d, want %d", op, id, s.at(id).item, k)
			}
			model[k] = id
		case 1:
			if id := s.find(h, k); id >= 0 {
				s.remove(id, h)
			}
			delete(model, k)
		case 2:
			want, ok := model[k]
			if !ok {
				want = none
			}
			if id := s.find(h, k); id != want {
				t.Fatalf("op %d: find(%d) = %d, want %d", op, k, id, want)
			}
		}
		if op%10_000 == 0 { // empty it: the records start again
			for k, id := range model {
				s.remove(id, hashItem(testSeed, k))
				delete(model, k)
			}
			peak = 0
		}
		peak = max(peak, len(model))
		if s.index.n != len(model) || len(s.recs) > peak {
			t.Fatalf("op %d: %d items in %d records, want %d items in at most %d", op, s.index.n, len(s.recs), len(model), peak)
		}
	}
}
