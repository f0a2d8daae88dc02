package workqueue

import (
	"fmt"
	"strconv"
)

// promote makes due items ready now, as the timer goroutine would, so
// that a test can step a fake clock and look at once.
func (q *PriorityQueue[T]) promote() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteDue(q.now())
}

// fakePriorityMetrics records the metrics of a PriorityQueue, the
// labelled depths under "depth{priority=P}".
type fakePriorityMetrics struct{ *fakeMetrics }

var _ PriorityMetricsProvider = fakePriorityMetrics{}

func newFakePriorityMetrics() fakePriorityMetrics { return fakePriorityMetrics{newFakeMetrics()} }

func (p fakePriorityMetrics) NewDepthMetricWithPriority(q, priority string) Gauge {
	return p.metric(fmt.Sprintf("depth{priority=%s}", priority), q)
}
func (p fakePriorityMetrics) NewFlowsMetric(q string) Gauge { return p.metric("flows", q) }
func (p fakePriorityMetrics) NewLargestFlowDepthMetric(q string) Gauge {
	return p.metric("largest_flow", q)
}

// depth returns the last workqueue_depth recorded for prio.
func (p fakePriorityMetrics) depth(prio int) int {
	v, _ := p.last("depth{priority=" + strconv.Itoa(prio) + "}")
	return int(v)
}
