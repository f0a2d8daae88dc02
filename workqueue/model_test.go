package workqueue

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// refQueue is the reference the queue is checked against: what a
// RateLimitingQueue promises, written as plainly as possible with one
// mutex and a few maps. Get never blocks: it reports ok false when a
// worker would wait.
type refQueue struct {
	mu         sync.Mutex
	now        time.Duration
	ready      []int
	dirty      map[int]bool
	processing map[int]bool
	waiting    map[int]refWait
	failures   map[int]int
	seq        int
	shut       bool
}

type refWait struct {
	at  time.Duration
	seq int
}

// The reference's rate limiter is NewExponentialLimiter(refBase, refMax).
const refBase, refMax = time.Millisecond, time.Second

func newRefQueue() *refQueue {
	return &refQueue{dirty: map[int]bool{}, processing: map[int]bool{}, waiting: map[int]refWait{}, failures: map[int]int{}}
}

func (r *refQueue) lock() func() { r.mu.Lock(); return r.mu.Unlock }

func (r *refQueue) Add(item int) { defer r.lock()(); r.add(item) }

func (r *refQueue) add(item int) {
	if r.shut || r.dirty[item] {
		return
	}
	delete(r.waiting, item) // a direct add drops a pending delay
	r.dirty[item] = true
	if !r.processing[item] {
		r.ready = append(r.ready, item)
	}
}

func (r *refQueue) AddAfter(item int, d time.Duration) { defer r.lock()(); r.addAfter(item, d) }

func (r *refQueue) addAfter(item int, d time.Duration) {
	if d <= 0 {
		r.add(item)
		return
	}
	if w, ok := r.waiting[item]; r.shut || r.dirty[item] || ok && w.at <= r.now+d {
		return // the item is ready sooner
	}
	r.seq++
	r.waiting[item] = refWait{r.now + d, r.seq}
}

func (r *refQueue) AddRateLimited(item int) {
	defer r.lock()()
	n := r.failures[item]
	r.failures[item]++
	r.addAfter(item, min(refBase<<min(n, 20), refMax))
}

func (r *refQueue) Forget(item int)          { defer r.lock()(); delete(r.failures, item) }
func (r *refQueue) NumRequeues(item int) int { defer r.lock()(); return r.failures[item] }
func (r *refQueue) Len() int                 { defer r.lock()(); return len(r.ready) }
func (r *refQueue) depth() int               { defer r.lock()(); return len(r.dirty) }
func (r *refQueue) ShutDown()                { defer r.lock()(); r.shut = true; clear(r.waiting) }
func (r *refQueue) idle() bool               { defer r.lock()(); return len(r.dirty)+len(r.processing) == 0 }
func (r *refQueue) Get() (item int, shutdown, ok bool) {
	defer r.lock()()
	if len(r.ready) == 0 {
		return 0, r.shut, r.shut
	}
	item, r.ready = r.ready[0], r.ready[1:]
	r.processing[item] = true
	delete(r.dirty, item)
	return item, false, true
}

func (r *refQueue) Done(item int) {
	defer r.lock()()
	if r.processing[item] {
		delete(r.processing, item)
		if r.dirty[item] {
			r.ready = append(r.ready, item)
		}
	}
}

// advance moves time on by d and makes the items due ready in deadline
// order, ties in the order they were delayed.
func (r *refQueue) advance(d time.Duration) {
	defer r.lock()()
	r.now += d
	due := slices.Collect(maps.Keys(r.waiting))
	due = slices.DeleteFunc(due, func(item int) bool { return r.waiting[item].at > r.now })
	slices.SortFunc(due, func(a, b int) int {
		wa, wb := r.waiting[a], r.waiting[b]
		return cmp.Or(cmp.Compare(wa.at, wb.at), cmp.Compare(wa.seq, wb.seq))
	})
	for _, item := range due {
		r.add(item)
	}
}

// TestModelSequential drives the queue and the reference with the same
// long random sequences of calls, in one goroutine with a fake clock, and
// compares every result: what Get hands out and in which order, Len,
// NumRequeues, shutdown, and with metrics workqueue_depth. Items are few,
// so that calls keep meeting items that are queued, processing, waiting
// or all at once. Without metrics the queue's lock-free ring and inbox
// are in play; with metrics every call takes the lock.
func TestModelSequential(t *testing.T) {
	for _, withMetrics := range []bool{false, true} {
		for seed := range uint64(10) {
			t.Run(fmt.Sprintf("metrics=%v/seed=%d", withMetrics, seed), func(t *testing.T) {
				runModelSequence(t, seed, withMetrics)
			})
		}
	}
}

func runModelSequence(t *testing.T, seed uint64, withMetrics bool) {
	r := rand.New(rand.NewPCG(seed, 11))
	clock := newFakeClock()
	metrics := newFakeMetrics()
	opts := []Option{WithClock(clock)}
	if withMetrics {
		opts = append(opts, WithName("model"), WithMetricsProvider(metrics))
	}
	q := NewRateLimiting(NewExponentialLimiter[int](refBase, refMax), opts...)
	defer q.ShutDown()
	ref := newRefQueue()
	items := 4 + r.IntN(60)
	ops := stressSize(3000)
	var log []string // the calls so far, for the failure message
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %s: %s", log[max(0, len(log)-12):], fmt.Sprintf(format, args...))
	}
	for range ops {
		item := r.IntN(items)
		switch p := r.IntN(100); {
		case p < 25:
			log = append(log, fmt.Sprint("Add(", item, ")"))
			q.Add(item)
			ref.Add(item)
		case p < 35:
			d := time.Duration(r.IntN(30)-5) * time.Millisecond
			log = append(log, fmt.Sprint("AddAfter(", item, ", ", d, ")"))
			q.AddAfter(item, d)
			ref.AddAfter(item, d)
		case p < 45:
			log = append(log, fmt.Sprint("AddRateLimited(", item, ")"))
			q.AddRateLimited(item)
			ref.AddRateLimited(item)
		case p < 70:
			want, shutdown, ok := ref.Get()
			if !ok {
				continue // a worker would wait
			}
			got, gotShutdown := q.Get()
			log = append(log, fmt.Sprint("Get() = ", got, ", ", gotShutdown))
			if got != want || gotShutdown != shutdown {
				fail("Get = %d, %v; want %d, %v", got, gotShutdown, want, shutdown)
			}
		case p < 88:
			log = append(log, fmt.Sprint("Done(", item, ")")) // often misuse: item not processing
			q.Done(item)
			ref.Done(item)
		case p < 92:
			log = append(log, fmt.Sprint("Forget(", item, ")"))
			q.Forget(item)
			ref.Forget(item)
		case p < 99:
			d := time.Duration(r.IntN(20)) * time.Millisecond
			log = append(log, fmt.Sprint("Step(", d, ")"))
			clock.Step(d)
			q.promote()
			ref.advance(d)
		case r.IntN(3) == 0: // shut down about once per 300 calls
			log = append(log, "ShutDown()")
			if ref.idle() && r.IntN(2) == 0 {
				q.ShutDownWithDrain() // returns at once: nothing to drain
			} else {
				q.ShutDown()
			}
			ref.ShutDown()
		}
		if got, want := q.Len(), ref.Len(); got != want {
			fail("Len = %d, want %d", got, want)
		}
		if got, want := q.NumRequeues(item), ref.NumRequeues(item); got != want {
			fail("NumRequeues(%d) = %d, want %d", item, got, want)
		}
		if got, want := q.ShuttingDown(), ref.shut; got != want {
			fail("ShuttingDown = %v, want %v", got, want)
		}
		if depth, _ := metrics.last("depth"); withMetrics && int(depth) != ref.depth() {
			fail("workqueue_depth = %v, want %d", depth, ref.depth())
		}
	}
}

// TestModelConcurrent runs random calls from several producers and
// workers at once and checks what holds whatever the interleaving: no
// item is handed to two workers at once; every item is handed out after
// its last add; an item is handed out no more often than it was added;
// Len counts the distinct items queued when nothing moves; NumRequeues
// counts AddRateLimited since the last Forget, which the reference keeps
// (each item's AddRateLimited and Forget come from one goroutine at a
// time: its owning producer, or the worker processing it); and a draining
// shutdown hands out what was queued, waits for it, and drops later adds.
func TestModelConcurrent(t *testing.T) {
	const items, producers, workers, rounds = 64, 4, 4, 3
	ops := stressSize(20_000)
	clock := newFakeClock()
	q := NewRateLimiting(NewExponentialLimiter[int](refBase, refMax), WithClock(clock))
	ref := newRefQueue() // only its failure counts are used
	s := newStressKeys(t, items)
	adds := make([]atomic.Int64, items)
	handedOut := make([]atomic.Int64, items)
	add := func(item int, call func()) {
		s.bump(item)
		adds[item].Add(1)
		call()
	}
	// Items below items/2 are the producers': producer p rate-limits and
	// forgets those with item%producers == p. The workers do that for
	// the others, while they process them.
	owns := func(producer, item int) bool { return item < items/2 && item%producers == producer }
	producerItem := func(item int) bool { return item < items/2 }

	// Nothing moves while producers only add: Len is the distinct items.
	s.produce(producers, 50, func(_ *rand.Rand, _, item int) { add(item, func() { q.Add(item) }) })
	queued := 0
	for i := range adds {
		if adds[i].Load() > 0 {
			queued++
		}
	}
	if got := q.Len(); got != queued {
		t.Fatalf("Len = %d after adds of %d distinct items, want %d", got, queued, queued)
	}

	var failing atomic.Bool // workers fail and re-add items while set
	workersDone := runWorkers(&q.Queue, workers, func(item int) {
		handedOut[item].Add(1)
		s.process(item, func() {
			switch p := rand.IntN(100); {
			case !failing.Load():
			case p < 15:
				add(item, func() { q.Add(item) }) // added while processing
			case p < 40 && !producerItem(item):
				q.AddRateLimited(item)
				ref.AddRateLimited(item)
			case p < 60 && !producerItem(item):
				q.Forget(item)
				ref.Forget(item)
			}
		})
	})
	for round := range rounds {
		failing.Store(true)
		s.produce(producers, ops, func(r *rand.Rand, p, item int) {
			switch k := r.IntN(100); {
			case k < 40:
				add(item, func() { q.Add(item) })
			case k < 65:
				add(item, func() { q.AddAfter(item, time.Duration(r.IntN(25)-5)*time.Millisecond) })
			case k < 85 && owns(p, item):
				add(item, func() { q.AddRateLimited(item); ref.AddRateLimited(item) })
			case k < 92 && owns(p, item):
				q.Forget(item)
				ref.Forget(item)
			case k < 96 && owns(p, item):
				// Only the owner changes its items' failures, so it
				// knows their count even while others run.
				if got, want := q.NumRequeues(item), ref.NumRequeues(item); got != want {
					t.Errorf("NumRequeues(%d) = %d, want %d", item, got, want)
				}
			case k >= 96:
				clock.Step(time.Millisecond)
				runtime.Gosched() // let the workers in, even on one processor
			}
		})
		// Stop failing and let every delay pass until nothing is left.
		failing.Store(false)
		settle(t, &q.Queue, clock)
		s.check()
		if got := q.Len(); got != 0 {
			t.Errorf("round %d: Len = %d when idle", round, got)
		}
		for item := range items {
			if h, a := handedOut[item].Load(), adds[item].Load(); h > a {
				t.Errorf("round %d: item %d handed out %d times for %d adds", round, item, h, a)
			}
			if got, want := q.NumRequeues(item), ref.NumRequeues(item); got != want {
				t.Errorf("round %d: NumRequeues(%d) = %d, want %d", round, item, got, want)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}

	// Queue a last batch and drain it while producers keep adding: after
	// the drain nothing is processing, and adds are dropped.
	for item := range items {
		add(item, func() { q.Add(item) })
	}
	lateAdds := make(chan struct{})
	var late sync.WaitGroup
	late.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-lateAdds:
				return
			default:
				q.Add(i % items) // no bump: dropped or not, s.check holds
			}
		}
	})
	q.ShutDownWithDrain()
	s.check()
	var handed int64
	for item := range items {
		if n := s.inFlight[item].Load(); n != 0 {
			t.Errorf("item %d still processing after the drain", item)
		}
		handed += handedOut[item].Load()
	}
	close(lateAdds)
	late.Wait()
	q.Add(0)
	q.AddRateLimited(1)
	if got := q.Len(); got != 0 {
		t.Errorf("Len = %d after the drain, want 0: adds after shutdown are dropped", got)
	}
	workersDone.Wait()
	var after int64
	for item := range items {
		after += handedOut[item].Load()
	}
	if after != handed {
		t.Errorf("%d items handed out after the drain returned", after-handed)
	}
}
