package bench

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
	cgworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/steadyctl/steady/workqueue"
)

// The queue methods both implementations share; the benchmarks drive
// both through these interfaces so they pay the same dispatch cost.
type (
	workqueueUnderTest interface {
		Add(item string)
		Get() (item string, shutdown bool)
		Done(item string)
		ShutDown()
	}
	delayingWorkqueueUnderTest interface {
		workqueueUnderTest
		AddAfter(item string, delay time.Duration)
	}
	rateLimitingWorkqueueUnderTest interface {
		workqueueUnderTest
		AddRateLimited(item string)
		Forget(item string)
	}
)

// steady's queues and limiters implement client-go's interfaces, so they
// can stand in for client-go's wherever those are used.
var (
	_ cgworkqueue.TypedInterface[string]             = (*workqueue.Queue[string])(nil)
	_ cgworkqueue.TypedDelayingInterface[string]     = (*workqueue.DelayingQueue[string])(nil)
	_ cgworkqueue.TypedRateLimitingInterface[string] = (*workqueue.RateLimitingQueue[string])(nil)
	_ cgworkqueue.TypedRateLimiter[string]           = (*workqueue.MaxOfLimiter[string])(nil)
)

// workqueueImpl builds the queues of one implementation.
type workqueueImpl struct {
	name         string
	queue        func() workqueueUnderTest
	delaying     func() delayingWorkqueueUnderTest
	rateLimiting func() rateLimitingWorkqueueUnderTest
}

// The rate-limited benchmark uses the shape of the default controller
// limiter (per-item exponential backoff max-of an overall token bucket)
// with a zero base delay and a bucket that never runs dry, so every
// operation pays for the limiter bookkeeping but no retry waits.
const (
	benchBucketRate  = rate.Limit(1e12)
	benchBucketBurst = 1 << 30
	benchMaxBackoff  = 1000 * time.Second
)

var workqueueImpls = []workqueueImpl{
	{
		name:     "steady",
		queue:    func() workqueueUnderTest { return workqueue.New[string]() },
		delaying: func() delayingWorkqueueUnderTest { return workqueue.NewDelaying[string]() },
		rateLimiting: func() rateLimitingWorkqueueUnderTest {
			return workqueue.NewRateLimiting(workqueue.NewMaxOfLimiter(
				workqueue.NewExponentialLimiter[string](0, benchMaxBackoff),
				workqueue.NewBucketLimiter[string](benchBucketRate, benchBucketBurst),
			))
		},
	},
	{
		name:     "client-go",
		queue:    func() workqueueUnderTest { return cgworkqueue.NewTyped[string]() },
		delaying: func() delayingWorkqueueUnderTest { return cgworkqueue.NewTypedDelayingQueue[string]() },
		rateLimiting: func() rateLimitingWorkqueueUnderTest {
			return cgworkqueue.NewTypedRateLimitingQueue(cgworkqueue.NewTypedMaxOfRateLimiter(
				cgworkqueue.NewTypedItemExponentialFailureRateLimiter[string](0, benchMaxBackoff),
				&cgworkqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(benchBucketRate, benchBucketBurst)},
			))
		},
	},
}

// workqueueKeys are namespace/name keys as informers produce them, built
// once so that no benchmark allocates them.
var workqueueKeys = func() []string {
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = "namespace-" + strconv.Itoa(i%100) + "/object-" + strconv.Itoa(i)
	}
	return keys
}()

// BenchmarkWorkqueue measures, per operation:
//   - distinct: one producer adds keys cycling over 100k distinct ones while
//     workers Get and Done them (the informer -> workers path), keeping at
//     most workqueueWindow items outstanding;
//   - hot: the same with 100 keys and one worker, so most adds merge into
//     an item already queued;
//   - ratelimited: AddRateLimited, Get, Forget, Done in one goroutine;
//   - delayed: one producer calls AddAfter(key, 1ms) over distinct keys
//     while workers Get and Done them as they become ready;
//   - sequential: one goroutine adds a batch of 64 distinct keys, then
//     Gets and Dones them: the queue's own CPU per item, without the
//     hand-offs between goroutines that the distinct rows also measure.
//
// processed/op is the fraction of adds that reached a worker; the rest were
// merged into a queued item, which the queue is meant to do. yields/op is
// how often the distinct-key producer had to wait for the workers.
// Queues are driven through interfaces both implementations satisfy, so
// both pay the same dispatch cost, and keys are built before timing.
func BenchmarkWorkqueue(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		for _, impl := range workqueueImpls {
			b.Run(fmt.Sprintf("distinct/workers=%d/impl=%s", workers, impl.name), func(b *testing.B) {
				benchWorkqueueAddGetDone(b, impl.queue(), workqueueKeys, workers, workqueueWindow)
			})
		}
	}
	for _, impl := range workqueueImpls {
		b.Run("hot/workers=1/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueAddGetDone(b, impl.queue(), workqueueKeys[:100], 1, 0)
		})
	}
	for _, impl := range workqueueImpls {
		b.Run("ratelimited/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueRateLimited(b, impl.rateLimiting(), workqueueKeys[:1000])
		})
	}
	for _, impl := range workqueueImpls {
		b.Run("delayed/workers=4/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueDelayed(b, impl.delaying(), workqueueKeys, 4)
		})
	}
	for _, impl := range workqueueImpls {
		b.Run("sequential/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueSequential(b, impl.queue(), workqueueKeys)
		})
	}
}

// workqueueWorkers are goroutines that Get and Done until shutdown, each
// counting the items it processed on a cache line of its own.
//
// A worker publishes its count once per workerCountEvery items, not per
// item: the distinct-key producer reads the counts while it waits for the
// workers, and a count stored per item would move its cache line between
// the cores with every item. That transfer is the harness's cost, not the
// queue's, and it lands on whichever side is the bottleneck: a profile of
// steady's 1-worker row had 17% of the CPU in the worker's loop itself,
// outside the queue.
type workqueueWorkers struct {
	wg        sync.WaitGroup
	processed []paddedCounter
}

// workerCountEvery is how many items a worker processes between
// publishing its count. The counts lag by less than workers *
// workerCountEvery items, which must stay below workqueueWindow: otherwise
// the workers could empty the queue and sleep while the producer still
// waits for counts they have not published.
const workerCountEvery = 16

type paddedCounter struct {
	n atomic.Int64
	_ [56]byte
}

// startWorkqueueWorkers starts workers on q, calling onItem (if not nil)
// for every item before Done.
func startWorkqueueWorkers(q workqueueUnderTest, workers int, onItem func(string)) *workqueueWorkers {
	w := &workqueueWorkers{processed: make([]paddedCounter, workers)}
	for i := range workers {
		counter := &w.processed[i].n
		w.wg.Go(func() {
			var n int64 // published in counter every workerCountEvery items
			defer func() { counter.Store(n) }()
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				if onItem != nil {
					onItem(item)
				}
				q.Done(item)
				if n++; n%workerCountEvery == 0 {
					counter.Store(n)
				}
			}
		})
	}
	return w
}

// total returns how many items the workers have published as processed:
// fewer than workers * workerCountEvery short of the true count until they
// stop, exact after.
func (w *workqueueWorkers) total() int64 {
	var n int64
	for i := range w.processed {
		n += w.processed[i].n.Load()
	}
	return n
}

// wait waits for the workers to stop and returns the items they processed.
func (w *workqueueWorkers) wait() int64 {
	w.wg.Wait()
	return w.total()
}

// workqueueWindow bounds how far the distinct-key producer may run ahead
// of the workers. A controller's queue is short in steady state; a
// producer left unbounded runs tens of thousands of items ahead, so the
// benchmark would measure cache misses in 100k-entry tables and would
// swing between scheduler regimes from run to run.
const workqueueWindow = 1000

// benchWorkqueueAddGetDone adds b.N keys cycling over keys while workers
// Get and Done them. With window > 0 the producer yields while more than
// window items are outstanding (keys must then be distinct enough that no
// add merges, or the producer would wait forever).
func benchWorkqueueAddGetDone(b *testing.B, q workqueueUnderTest, keys []string, workers, window int) {
	b.ReportAllocs()
	if window > 0 && workers*workerCountEvery >= window {
		b.Fatalf("%d workers publish counts too seldom for a window of %d items", workers, window)
	}
	w := startWorkqueueWorkers(q, workers, nil)
	yields := 0
	b.ResetTimer()
	for i := range b.N {
		if window > 0 && i%64 == 0 {
			for int64(i)-w.total() > int64(window) {
				runtime.Gosched()
				yields++
			}
		}
		q.Add(keys[i%len(keys)])
	}
	q.ShutDown()
	processed := w.wait()
	b.StopTimer()
	b.ReportMetric(float64(processed)/float64(b.N), "processed/op")
	b.ReportMetric(float64(yields)/float64(b.N), "yields/op")
}

func benchWorkqueueRateLimited(b *testing.B, q rateLimitingWorkqueueUnderTest, keys []string) {
	b.ReportAllocs()
	defer q.ShutDown()
	b.ResetTimer()
	for i := range b.N {
		q.AddRateLimited(keys[i%len(keys)])
		item, _ := q.Get()
		q.Forget(item)
		q.Done(item)
	}
}

func benchWorkqueueSequential(b *testing.B, q workqueueUnderTest, keys []string) {
	const batch = 64
	b.ReportAllocs()
	defer q.ShutDown()
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		n := min(batch, b.N-i)
		for j := range n {
			q.Add(keys[(i+j)%len(keys)])
		}
		for range n {
			item, _ := q.Get()
			q.Done(item)
		}
	}
}

func benchWorkqueueDelayed(b *testing.B, q delayingWorkqueueUnderTest, keys []string, workers int) {
	const sentinel = "sentinel/last"
	b.ReportAllocs()
	last := make(chan struct{})
	w := startWorkqueueWorkers(q, workers, func(item string) {
		if item == sentinel {
			close(last)
		}
	})
	b.ResetTimer()
	for i := range b.N {
		q.AddAfter(keys[i%len(keys)], time.Millisecond)
	}
	// Its deadline is the latest, so by the time it is handed out every
	// earlier item has become ready.
	q.AddAfter(sentinel, time.Millisecond)
	<-last
	q.ShutDown()
	processed := w.wait() - 1
	b.StopTimer()
	b.ReportMetric(float64(processed)/float64(b.N), "processed/op")
}
