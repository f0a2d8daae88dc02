package workqueue

import (
	"strconv"
	"time"
)

// PriorityMetricsProvider is a MetricsProvider that also creates the
// metrics only a PriorityQueue has. A PriorityQueue named with WithName
// whose provider implements it reports workqueue_depth per priority, as
// controller-runtime's priority queue does, instead of one total, and,
// once an item is added with a flow, two gauges of its flows; with a
// plain MetricsProvider it reports the total depth and no flow gauges.
//
//	workqueue_depth{priority}      Gauge  items queued at each priority (the priority they were added at, before aging)
//	workqueue_flows                Gauge  flows with items ready to hand out
//	workqueue_largest_flow_depth   Gauge  ready items of the flow with most
//
// A queue labels at most 25 distinct priorities, the first it sees; the
// items of any other priority are counted under the label
// "exceeded_cardinality_limit". Flows (namespaces, say) are too many to
// label, so only their number and the largest flow's depth are reported,
// refreshed every 500ms with the gauges of unfinished work.
// NewDepthMetricWithPriority is called the first time a priority is
// seen, the flow metrics the first time they are refreshed after an add
// with a flow; both with the queue's lock held.
type PriorityMetricsProvider interface {
	MetricsProvider
	NewDepthMetricWithPriority(queue, priority string) Gauge
	NewFlowsMetric(queue string) Gauge
	NewLargestFlowDepthMetric(queue string) Gauge
}

// maxPriorityLabels is controller-runtime's limit too: enough for the
// two priorities controllers use and a few of the user's own.
const maxPriorityLabels = 25

// otherPriorities labels the depth of priorities beyond the limit.
const otherPriorities = "exceeded_cardinality_limit"

// priorityMetrics is a PriorityQueue's metrics: the plain queue's, with
// workqueue_depth labelled by priority when the provider can.
type priorityMetrics[T comparable] struct {
	*queueMetrics[T]                             // its addedAt stays empty; see added
	addedWhileProcessing map[int32]time.Duration // by record id
	provider             PriorityMetricsProvider // nil when depth is not labelled
	name                 string
	depths               map[int]*priorityDepth // the labelled priorities
	other                *priorityDepth
	flows, largestFlow   Gauge // nil until the queue sees a flow
}

type priorityDepth struct {
	gauge Gauge
	n     int
}

func newPriorityMetrics[T comparable](p MetricsProvider, name string) *priorityMetrics[T] {
	if p == nil {
		return nil
	}
	pp, ok := p.(PriorityMetricsProvider)
	if !ok {
		return &priorityMetrics[T]{queueMetrics: newQueueMetrics[T](p, name), addedWhileProcessing: map[int32]time.Duration{}}
	}
	return &priorityMetrics[T]{
		queueMetrics:         newQueueMetricsWithDepth[T](p, name, discardGauge{}),
		addedWhileProcessing: map[int32]time.Duration{},
		provider:             pp,
		name:                 name,
		depths:               map[int]*priorityDepth{},
	}
}

// discardGauge stands for the total depth of a queue whose depth is
// labelled by priority.
type discardGauge struct{}

func (discardGauge) Set(float64) {}

// added records that item id became dirty at now. Its queue duration
// runs from then to its hand-out. An item that is not being processed
// became ready then too, and its record's readyAt, which the hand-out
// passes in, says so: no map keeps the time of every queued item, as
// Queue's addedAt does. An item being processed becomes ready only at
// Done, so the time it was added is kept here until its hand-out.
func (m *priorityMetrics[T]) added(id int32, processing bool, now time.Duration, prio int) {
	m.countAdded()
	if processing {
		m.addedWhileProcessing[id] = now
	}
	m.depth(prio, 1)
}

// handedOut records that Get gave item id, which became ready at
// readyAt, to a worker at now.
func (m *priorityMetrics[T]) handedOut(item T, id int32, now, readyAt time.Duration, prio int) {
	addedAt := readyAt
	if at, ok := m.addedWhileProcessing[id]; ok {
		addedAt = at
		delete(m.addedWhileProcessing, id)
	}
	m.latency.Observe((now - addedAt).Seconds())
	m.started(item, now)
	m.depth(prio, -1)
}

// reprioritized moves a queued item's count from priority old to prio.
func (m *priorityMetrics[T]) reprioritized(old, prio int) {
	m.depth(old, -1)
	m.depth(prio, 1)
}

func (m *priorityMetrics[T]) depth(prio, delta int) {
	if m.provider == nil {
		return
	}
	d, ok := m.depths[prio]
	switch {
	case ok:
	case len(m.depths) < maxPriorityLabels:
		d = &priorityDepth{gauge: m.provider.NewDepthMetricWithPriority(m.name, strconv.Itoa(prio))}
		m.depths[prio] = d
	default:
		if m.other == nil {
			m.other = &priorityDepth{gauge: m.provider.NewDepthMetricWithPriority(m.name, otherPriorities)}
		}
		d = m.other
	}
	d.n += delta
	d.gauge.Set(float64(d.n))
}

// refresh sets the gauges refreshed by the clock: unfinished work, and
// the flow gauges once the queue has seen a flow.
func (m *priorityMetrics[T]) refresh(now time.Duration, flows *flowTable) {
	m.updateUnfinished(now)
	if m.provider == nil || len(flows.recs) == 1 {
		return
	}
	if m.flows == nil {
		m.flows = m.provider.NewFlowsMetric(m.name)
		m.largestFlow = m.provider.NewLargestFlowDepthMetric(m.name)
	}
	m.flows.Set(float64(flows.active))
	m.largestFlow.Set(float64(flows.largest()))
}
