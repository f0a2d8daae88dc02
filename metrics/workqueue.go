package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/workqueue"
)

// Workqueue is a workqueue.MetricsProvider that records every named queue's
// metrics in Prometheus, under the names dashboards for Kubernetes
// controllers already use, labelled by queue name. It is a
// workqueue.PriorityMetricsProvider too: a priority queue's
// workqueue_depth has a priority label as well, as controller-runtime's
// has, and its flows are counted by workqueue_flows and
// workqueue_largest_flow_depth.
type Workqueue struct {
	depth               *depthCollector
	unfinished, longest *prometheus.GaugeVec
	flows, largestFlow  *prometheus.GaugeVec
	adds, retries       *prometheus.CounterVec
	latency, work       *prometheus.HistogramVec
}

var _ workqueue.PriorityMetricsProvider = (*Workqueue)(nil)

// depthCollector reports workqueue_depth: labelled by name for the plain
// queues, by name and priority for the priority queues. Prometheus reads
// a label missing from a series as an empty one, so sum by (name) works
// across both, while the plain queues' series stay as they always were
// (controller-runtime instead gives them priority=""). A registry checks
// that the series of one metric have the same labels only for the
// collectors that describe their metrics, so this one describes none.
type depthCollector struct {
	plain, byPriority *prometheus.GaugeVec
}

func newDepthCollector() *depthCollector {
	opts := prometheus.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of the work queue."}
	return &depthCollector{
		plain:      prometheus.NewGaugeVec(opts, []string{"name"}),
		byPriority: prometheus.NewGaugeVec(opts, []string{"name", "priority"}),
	}
}

// Describe implements prometheus.Collector: by describing nothing, it
// makes the collector unchecked (see depthCollector).
func (*depthCollector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (d *depthCollector) Collect(ch chan<- prometheus.Metric) {
	d.plain.Collect(ch)
	d.byPriority.Collect(ch)
}

// NewWorkqueue registers the workqueue metrics in reg.
func NewWorkqueue(reg prometheus.Registerer) (*Workqueue, error) {
	seconds := prometheus.ExponentialBuckets(10e-9, 10, 12) // 10ns .. ~3h, as client-go's
	w := &Workqueue{
		depth: newDepthCollector(),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total",
			Help: "Total number of adds handled by the work queue."}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_queue_duration_seconds",
			Help: "How long in seconds an item stays in the work queue before being requested.", Buckets: seconds}, []string{"name"}),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_work_duration_seconds",
			Help: "How long in seconds processing an item from the work queue takes.", Buckets: seconds}, []string{"name"}),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_unfinished_work_seconds",
			Help: "Seconds of work in progress not yet observed by work_duration; large values suggest stuck workers."}, []string{"name"}),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_longest_running_processor_seconds",
			Help: "How many seconds the longest running processor of the work queue has been running."}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_retries_total",
			Help: "Total number of retries handled by the work queue."}, []string{"name"}),
		flows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_flows",
			Help: "Fairness flows with items ready in the priority queue."}, []string{"name"}),
		largestFlow: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_largest_flow_depth",
			Help: "Items ready in the priority queue's largest fairness flow."}, []string{"name"}),
	}
	// The unchecked depth collector goes last, so that registering twice
	// fails before it is in.
	for _, c := range []prometheus.Collector{w.adds, w.latency, w.work, w.unfinished, w.longest, w.retries,
		w.flows, w.largestFlow, w.depth} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering workqueue metrics: %w", err)
		}
	}
	return w, nil
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewDepthMetric(q string) workqueue.Gauge { return w.depth.plain.WithLabelValues(q) }

// NewDepthMetricWithPriority implements workqueue.PriorityMetricsProvider.
func (w *Workqueue) NewDepthMetricWithPriority(q, priority string) workqueue.Gauge {
	return w.depth.byPriority.WithLabelValues(q, priority)
}

// NewFlowsMetric implements workqueue.PriorityMetricsProvider.
func (w *Workqueue) NewFlowsMetric(q string) workqueue.Gauge { return w.flows.WithLabelValues(q) }

// NewLargestFlowDepthMetric implements workqueue.PriorityMetricsProvider.
func (w *Workqueue) NewLargestFlowDepthMetric(q string) workqueue.Gauge {
	return w.largestFlow.WithLabelValues(q)
}

// NewAddsMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewAddsMetric(q string) workqueue.Counter { return w.adds.WithLabelValues(q) }

// NewLatencyMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewLatencyMetric(q string) workqueue.Histogram {
	return w.latency.WithLabelValues(q)
}

// NewWorkDurationMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewWorkDurationMetric(q string) workqueue.Histogram {
	return w.work.WithLabelValues(q)
}

// NewUnfinishedWorkSecondsMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewUnfinishedWorkSecondsMetric(q string) workqueue.Gauge {
	return w.unfinished.WithLabelValues(q)
}

// NewLongestRunningProcessorSecondsMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewLongestRunningProcessorSecondsMetric(q string) workqueue.Gauge {
	return w.longest.WithLabelValues(q)
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewRetriesMetric(q string) workqueue.Counter { return w.retries.WithLabelValues(q) }
