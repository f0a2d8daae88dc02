package informer

import (
	"container/heap"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// failOpen is the revision of a source whose resourceVersions are not
// etcd revisions: every comparison with it says "processed".
const failOpen = math.MaxUint64

// sourceProgress is one source's side of HasProcessed, WhenProcessed and
// Progress (whose Received is the reflector's LastEventTime). Its FIFO
// reports each new store resourceVersion (advance); the revision and when
// it moved are atomics, so the hot paths — advance after every batch,
// HasProcessed before every reconcile — take no lock unless someone waits.
type sourceProgress struct {
	rev      atomic.Uint64 // the revision the cache reflects; 0 before the first list
	advanced atomic.Int64  // when rev last moved (see stamp); 0: never
	waiting  atomic.Int32  // len(waiters), so advance skips mu when nobody waits

	clock clock.PassiveClock
	base  time.Time // stamps are durations since base: cheaper than clock.Now

	mu      sync.Mutex
	waiters waiterHeap
	ended   bool // the informer stopped or was released: no more waiting
}

func (p *sourceProgress) init(c clock.PassiveClock) {
	p.clock, p.base = c, c.Now()
}

// stamp is the time now as a duration since base, plus one so that zero
// means never. A monotonic reading costs half of a wall-clock one.
func (p *sourceProgress) stamp() int64 { return int64(p.clock.Since(p.base)) + 1 }

// advancedAt is when rev last moved; zero if it never has.
func (p *sourceProgress) advancedAt() time.Time {
	s := p.advanced.Load()
	if s == 0 {
		return time.Time{}
	}
	return p.base.Add(time.Duration(s - 1))
}

// advance is the FIFO's WithProgress function: its store now reflects rv.
// Calls may race (a Pop and a Bookmark) and arrive out of order, so the
// revision only ever grows.
func (p *sourceProgress) advance(rv string) {
	rev, ok := revision(rv)
	if !ok {
		if rv == "" {
			return // nothing listed yet
		}
		rev = failOpen
	}
	for {
		old := p.rev.Load()
		if rev <= old {
			return
		}
		if p.rev.CompareAndSwap(old, rev) {
			break
		}
	}
	p.advanced.Store(p.stamp())
	// A waiter registering now either is seen here or sees the new rev
	// itself (when re-checks it after counting itself in).
	if p.waiting.Load() > 0 {
		p.release(false)
	}
}

// release runs the waiters the revision has reached, or all of them once
// the informer has ended, outside the lock.
func (p *sourceProgress) release(end bool) {
	p.mu.Lock()
	if end {
		p.ended = true
	}
	rev := p.rev.Load()
	var due []func()
	for len(p.waiters) > 0 && (end || p.waiters[0].rev <= rev) {
		due = append(due, heap.Pop(&p.waiters).(*waiter).f)
	}
	p.waiting.Store(int32(len(p.waiters)))
	p.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// end runs every waiter: the informer will not advance any more.
func (p *sourceProgress) end() { p.release(true) }

// when registers f to run once rev reaches want (see WhenProcessed).
func (p *sourceProgress) when(want uint64, f func()) (cancel func() bool, waiting bool) {
	if p.rev.Load() >= want {
		return notWaiting, false
	}
	w := &waiter{rev: want, f: f}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return notWaiting, false
	}
	heap.Push(&p.waiters, w)
	p.waiting.Store(int32(len(p.waiters)))
	if p.rev.Load() >= want { // advanced before advance could see the waiter
		heap.Remove(&p.waiters, w.index)
		p.waiting.Store(int32(len(p.waiters)))
		return notWaiting, false
	}
	return func() bool { return p.cancel(w) }, true
}

func (p *sourceProgress) cancel(w *waiter) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.index < 0 {
		return false // run, or cancelled before
	}
	heap.Remove(&p.waiters, w.index)
	p.waiting.Store(int32(len(p.waiters)))
	return true
}

// waiter is one WhenProcessed call on one source. index is its place in
// the heap, -1 once it has left it.
type waiter struct {
	rev   uint64
	f     func()
	index int
}

// waiterHeap is a min-heap of waiters by revision: advance runs them from
// the front.
type waiterHeap []*waiter

func (h waiterHeap) Len() int           { return len(h) }
func (h waiterHeap) Less(i, j int) bool { return h[i].rev < h[j].rev }
func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *waiterHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}

func (h *waiterHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
