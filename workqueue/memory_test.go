package workqueue

import (
	"fmt"
	"runtime"
	"testing"
)

// nsName stands in for a controller's request, a NamespacedName: two
// strings, 32 bytes.
type nsName struct{ Namespace, Name string }

func nsNames(n int) []nsName {
	items := make([]nsName, n)
	for i := range items {
		items[i] = nsName{"ns-" + fmt.Sprint(i%10), "configmap-" + fmt.Sprint(i)}
	}
	return items
}

// nopMetrics is a PriorityMetricsProvider whose metrics keep nothing, so
// that only the queue's own bookkeeping for metrics is measured.
type nopMetrics struct{}

type nopMetric struct{}

func (nopMetric) Inc()            {}
func (nopMetric) Set(float64)     {}
func (nopMetric) Observe(float64) {}

func (nopMetrics) NewDepthMetric(string) Gauge                          { return nopMetric{} }
func (nopMetrics) NewAddsMetric(string) Counter                         { return nopMetric{} }
func (nopMetrics) NewLatencyMetric(string) Histogram                    { return nopMetric{} }
func (nopMetrics) NewWorkDurationMetric(string) Histogram               { return nopMetric{} }
func (nopMetrics) NewUnfinishedWorkSecondsMetric(string) Gauge          { return nopMetric{} }
func (nopMetrics) NewLongestRunningProcessorSecondsMetric(string) Gauge { return nopMetric{} }
func (nopMetrics) NewRetriesMetric(string) Counter                      { return nopMetric{} }
func (nopMetrics) NewDepthMetricWithPriority(string, string) Gauge      { return nopMetric{} }
func (nopMetrics) NewFlowsMetric(string) Gauge                          { return nopMetric{} }
func (nopMetrics) NewLargestFlowDepthMetric(string) Gauge               { return nopMetric{} }

// metricsOptions returns the options of a queue with metrics, or none.
func metricsOptions(on bool) []Option {
	if !on {
		return nil
	}
	return []Option{WithName("bytes"), WithMetricsProvider(nopMetrics{})}
}

// fillQueue adds items to a new Queue, as an informer's initial list
// does, and returns a func that shuts it down.
func fillQueue(items []nsName, metrics bool) func() {
	q := New[nsName](metricsOptions(metrics)...)
	for _, item := range items {
		q.Add(item)
	}
	q.Len() // applies the Adds left in the inbox
	return q.ShutDown
}

// fillPriority adds items to a new PriorityQueue at LowPriority, as the
// controller adds an informer's initial list, and returns a func that
// shuts it down.
func fillPriority(items []nsName, metrics bool) func() {
	q := NewPriority(NewExponentialLimiter[nsName](1, 2), metricsOptions(metrics)...)
	low := LowPriority
	for _, item := range items {
		q.AddWithOpts(AddOpts{Priority: &low, Reasons: 1}, item)
	}
	return q.ShutDown
}

// heapPerItem returns the live heap that fill adds per item: the heap in
// use after a collection, before and after fill, divided by the items.
// The items' strings exist before, so only the queue's own memory counts.
func heapPerItem(items []nsName, metrics bool, fill func([]nsName, bool) func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	shutDown := fill(items, metrics)
	runtime.GC()
	runtime.ReadMemStats(&after)
	shutDown()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(items))
}

// TestPriorityHoldsNoMoreMemoryPerItemThanQueue checks that a
// PriorityQueue holding an initial list of 10,000 keys keeps no more heap
// per key than a Queue does: a controller's peak memory at start-up
// grows with it.
func TestPriorityHoldsNoMoreMemoryPerItemThanQueue(t *testing.T) {
	items := nsNames(10_000)
	for _, metrics := range []bool{false, true} {
		queue := heapPerItem(items, metrics, fillQueue)
		priority := heapPerItem(items, metrics, fillPriority)
		t.Logf("metrics %v: Queue %.0f B/item, PriorityQueue %.0f B/item", metrics, queue, priority)
		if priority > queue {
			t.Errorf("metrics %v: PriorityQueue keeps %.0f B per item, Queue %.0f", metrics, priority, queue)
		}
	}
}

// BenchmarkQueueBytes reports the heap a Queue and a PriorityQueue keep
// per item (B/item) while they hold an initial list of NamespacedName-like
// keys, with and without metrics. Its time per op is that of building
// the queue and two collections; only B/item is of interest.
func BenchmarkQueueBytes(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		items := nsNames(n)
		for _, metrics := range []bool{false, true} {
			for _, impl := range []struct {
				name string
				fill func([]nsName, bool) func()
			}{{"queue", fillQueue}, {"priority", fillPriority}} {
				b.Run(fmt.Sprintf("%s/items=%d/metrics=%v", impl.name, n, metrics), func(b *testing.B) {
					var perItem float64
					for b.Loop() {
						perItem = heapPerItem(items, metrics, impl.fill)
					}
					b.ReportMetric(perItem, "B/item")
				})
			}
		}
	}
}
