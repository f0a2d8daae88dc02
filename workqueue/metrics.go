package workqueue

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Counter is a metric that only goes up, such as workqueue_adds_total.
type Counter interface {
	Inc()
}

// Gauge is a metric that is set to the current value of something, such
// as workqueue_depth.
type Gauge interface {
	Set(float64)
}

// Histogram records observations, such as the seconds an item waited in
// workqueue_queue_duration_seconds.
type Histogram interface {
	Observe(float64)
}

// MetricsProvider creates the metrics of one queue. Each method is called
// once per named queue, with the queue's name, when the queue is built;
// the package documentation lists the metric names an implementation
// should register them under. The metrics are updated while the queue
// holds its lock, so their methods must be fast and must not call back
// into the queue.
type MetricsProvider interface {
	NewDepthMetric(queue string) Gauge
	NewAddsMetric(queue string) Counter
	NewLatencyMetric(queue string) Histogram
	NewWorkDurationMetric(queue string) Histogram
	NewUnfinishedWorkSecondsMetric(queue string) Gauge
	NewLongestRunningProcessorSecondsMetric(queue string) Gauge
	NewRetriesMetric(queue string) Counter
}

// unfinishedWorkPeriod is how often the gauges of work still in progress
// are refreshed, matching what dashboards built for client-go expect.
const unfinishedWorkPeriod = 500 * time.Millisecond

// queueMetrics holds one queue's metrics and the timestamps they need.
// A queue without metrics has a nil *queueMetrics and skips all of this,
// so the hot path reads no clock and touches no extra map.
// Every method is called with the queue's lock held.
type queueMetrics[T comparable] struct {
	depth          Gauge
	adds           Counter
	latency        Histogram
	workDuration   Histogram
	unfinishedWork Gauge
	longestRunning Gauge
	retries        Counter

	addedAt   map[T]time.Duration // when a queued item became dirty
	startedAt map[T]time.Duration // when a processing item was handed out

	// dirty is what workqueue_depth reports: the items marked dirty and
	// not handed out since, including items added again while being
	// processed, which are not ready until Done. client-go's depth gauge
	// counts those too, and dashboards read it that way.
	dirty int
}

func newQueueMetrics[T comparable](p MetricsProvider, name string) *queueMetrics[T] {
	if p == nil {
		return nil
	}
	return newQueueMetricsWithDepth[T](p, name, p.NewDepthMetric(name))
}

// newQueueMetricsWithDepth is newQueueMetrics with the depth gauge given.
func newQueueMetricsWithDepth[T comparable](p MetricsProvider, name string, depth Gauge) *queueMetrics[T] {
	return &queueMetrics[T]{
		depth:          depth,
		adds:           p.NewAddsMetric(name),
		latency:        p.NewLatencyMetric(name),
		workDuration:   p.NewWorkDurationMetric(name),
		unfinishedWork: p.NewUnfinishedWorkSecondsMetric(name),
		longestRunning: p.NewLongestRunningProcessorSecondsMetric(name),
		retries:        p.NewRetriesMetric(name),
		addedAt:        make(map[T]time.Duration),
		startedAt:      make(map[T]time.Duration),
	}
}

// added records that item became dirty at now.
func (m *queueMetrics[T]) added(item T, now time.Duration) {
	m.countAdded()
	if _, ok := m.addedAt[item]; !ok {
		m.addedAt[item] = now
	}
}

// countAdded counts an item that became dirty.
func (m *queueMetrics[T]) countAdded() {
	m.adds.Inc()
	m.dirty++
	m.depth.Set(float64(m.dirty))
}

// handedOut records that Get gave item to a worker at now.
func (m *queueMetrics[T]) handedOut(item T, now time.Duration) {
	if at, ok := m.addedAt[item]; ok {
		m.latency.Observe((now - at).Seconds())
		delete(m.addedAt, item)
	}
	m.started(item, now)
}

// started records that item, no longer dirty, was handed out at now.
func (m *queueMetrics[T]) started(item T, now time.Duration) {
	m.dirty--
	m.depth.Set(float64(m.dirty))
	m.startedAt[item] = now
}

// done records that a worker finished item at now.
func (m *queueMetrics[T]) done(item T, now time.Duration) {
	if at, ok := m.startedAt[item]; ok {
		m.workDuration.Observe((now - at).Seconds())
		delete(m.startedAt, item)
	}
}

// updateUnfinished sets the gauges of work still in progress at now.
func (m *queueMetrics[T]) updateUnfinished(now time.Duration) {
	var total, longest time.Duration
	for _, at := range m.startedAt {
		age := now - at
		total += age
		longest = max(longest, age)
	}
	m.unfinishedWork.Set(total.Seconds())
	m.longestRunning.Set(longest.Seconds())
}

// reportUnfinishedWork calls refresh, with mu held, on every tick of t
// until stop is closed: a queue's goroutine that refreshes the gauges of
// work in progress.
func reportUnfinishedWork(t clock.Ticker, stop <-chan struct{}, mu *sync.Mutex, refresh func()) {
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C():
			mu.Lock()
			refresh()
			mu.Unlock()
		}
	}
}
