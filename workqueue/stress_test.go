package workqueue

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
)

// stressKeys tracks, per key, what producers asked for and what workers
// saw, to check the queue's two promises: a key is never processed by
// two workers at once, and every key is processed after its last add.
type stressKeys struct {
	t        *testing.T
	version  []atomic.Int64 // bumped by a producer before each add
	observed []atomic.Int64 // the version a worker saw when it started
	inFlight []atomic.Int32
}

func newStressKeys(t *testing.T, n int) *stressKeys {
	return &stressKeys{
		t:        t,
		version:  make([]atomic.Int64, n),
		observed: make([]atomic.Int64, n),
		inFlight: make([]atomic.Int32, n),
	}
}

// bump records that key's data changed; call it before adding key.
func (s *stressKeys) bump(key int) { s.version[key].Add(1) }

// process runs one worker's processing of key.
func (s *stressKeys) process(key int, work func()) {
	if n := s.inFlight[key].Add(1); n != 1 {
		s.t.Errorf("key %d processed by %d workers at once", key, n)
	}
	s.observed[key].Store(s.version[key].Load())
	if work != nil {
		work()
	}
	s.inFlight[key].Add(-1)
}

// produce runs producers goroutines that each call add calls with random
// keys, and waits for them. add gets the producer's number; it must bump
// a key it adds.
func (s *stressKeys) produce(producers, calls int, add func(r *rand.Rand, producer, key int)) {
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), uint64(calls)))
			for range calls {
				add(r, p, r.IntN(len(s.version)))
			}
		})
	}
	wg.Wait()
}

func (s *stressKeys) check() {
	for k := range s.version {
		if v, o := s.version[k].Load(), s.observed[k].Load(); v != o {
			s.t.Errorf("key %d: last processing saw version %d of %d", k, o, v)
		}
	}
}

// workerQueue is what a worker calls: any of the package's queues.
type workerQueue interface {
	Get() (int, bool)
	Done(int)
}

// runWorkers runs n workers on q until Get reports shutdown.
func runWorkers(q workerQueue, n int, process func(key int)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				process(key)
				q.Done(key)
			}
		})
	}
	return &wg
}

func stressSize(full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

func TestStressQueue(t *testing.T) {
	const keys, producers, workers = 200, 8, 8
	adds := stressSize(4000)
	s := newStressKeys(t, keys)
	q := New[int]()
	var readding atomic.Bool
	readding.Store(true)
	workersDone := runWorkers(q, workers, func(key int) {
		s.process(key, func() {
			if readding.Load() && key%7 == 0 {
				// Re-add while processing: must be handed out again
				// after Done, never to a second worker now.
				s.bump(key)
				q.Add(key)
			}
			runtime.Gosched()
		})
	})
	s.produce(producers, adds, func(_ *rand.Rand, _, key int) {
		s.bump(key)
		q.Add(key)
	})
	// Adds after shutdown are dropped, so stop re-adding and let the
	// re-adds already made go through before draining.
	readding.Store(false)
	testkit.Eventually(t, 10*time.Second, "the queue to go idle", q.quiet)
	q.ShutDownWithDrain()
	workersDone.Wait()
	s.check()
}

// settle steps clock an hour at a time, making due items ready, until
// nothing is queued, processing or waiting in q.
func settle[T comparable](t *testing.T, q *Queue[T], clock *clocktesting.FakeClock) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the queue to go idle", func() bool {
		clock.Step(time.Hour)
		q.promote()
		return q.quiet()
	})
}

// quiet reports whether nothing is queued, processing or waiting.
func (q *Queue[T]) quiet() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	return q.idle() && q.waiting.live == 0
}

func TestStressRateLimitingQueue(t *testing.T) {
	const keys, producers, workers = 100, 4, 6
	adds := stressSize(3000)
	s := newStressKeys(t, keys)
	clock := newFakeClock()
	q := NewRateLimiting(NewExponentialLimiter[int](time.Millisecond, 50*time.Millisecond), WithClock(clock))
	var failuresOn atomic.Bool
	failuresOn.Store(true)
	workersDone := runWorkers(&q.Queue, workers, func(key int) {
		s.process(key, func() {
			if failuresOn.Load() && key%3 == 0 {
				q.AddRateLimited(key) // failed: retry later, same version
				return
			}
			q.Forget(key)
		})
	})

	// Move time along in small steps while producers add and delay.
	stopStepping := make(chan struct{})
	var stepper sync.WaitGroup
	stepper.Go(func() {
		for {
			select {
			case <-stopStepping:
				return
			default:
				clock.Step(time.Millisecond)
				runtime.Gosched()
			}
		}
	})
	s.produce(producers, adds, func(r *rand.Rand, _, key int) {
		s.bump(key)
		if r.IntN(3) == 0 {
			q.Add(key)
		} else {
			q.AddAfter(key, time.Duration(r.IntN(20))*time.Millisecond)
		}
	})
	close(stopStepping)
	stepper.Wait()

	// Let every pending retry and delay fire, with no new failures,
	// until nothing is left, then drain.
	failuresOn.Store(false)
	settle(t, &q.Queue, clock)
	q.ShutDownWithDrain()
	workersDone.Wait()
	s.check()
}
