package workqueue

import "time"

// deadline is one pending AddAfter: item becomes ready at at (time since
// the queue's epoch). seq breaks ties so that items with equal deadlines
// become ready in the order they were added.
type deadline[T any] struct {
	at   time.Duration
	seq  uint64
	item T
	hash uint64
}

func (d *deadline[T]) before(o *deadline[T]) bool {
	return d.at < o.at || (d.at == o.at && d.seq < o.seq)
}

// deadlineHeap is a binary min-heap of deadlines. It is written for the
// element type rather than through container/heap, whose interface{}
// Push and Pop would allocate for every entry.
//
// The queue deletes from it lazily: an entry whose item was since added
// directly, or given an earlier deadline, stays in the heap and is
// recognised as stale when it reaches the top (see Queue.promoteDue). That
// keeps the item -> state map free of heap positions, so moving entries
// around the heap costs no map writes.
type deadlineHeap[T any] []deadline[T]

func (h *deadlineHeap[T]) push(d deadline[T]) {
	*h = append(*h, d)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].before(&s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// pop removes the earliest deadline; the heap must not be empty.
func (h *deadlineHeap[T]) pop() deadline[T] {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = deadline[T]{} // let the garbage collector have the item
	*h = s[:last]
	h.down(0)
	return top
}

func (h deadlineHeap[T]) down(i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].before(&h[least]) {
				least = c
			}
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}

// filter keeps the entries for which keep returns true and restores the
// heap order, in linear time.
func (h *deadlineHeap[T]) filter(keep func(*deadline[T]) bool) {
	s := *h
	n := 0
	for i := range s {
		if keep(&s[i]) {
			s[n] = s[i]
			n++
		}
	}
	clear(s[n:])
	*h = s[:n]
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
