package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/workqueue"
)

// Workqueue is a workqueue.MetricsProvider that records every named queue's
// metrics in Prometheus, under the names dashboards for Kubernetes
// controllers already use, labelled by queue name.
type Workqueue struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

var _ workqueue.MetricsProvider = (*Workqueue)(nil)

// NewWorkqueue registers the workqueue metrics in reg.
func NewWorkqueue(reg prometheus.Registerer) (*Workqueue, error) {
	seconds := prometheus.ExponentialBuckets(10e-9, 10, 12) // 10ns .. ~3h, as client-go's
	w := &Workqueue{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth",
			Help: "Current depth of the work queue."}, []string{"name"}),
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
	}
	for _, c := range []prometheus.Collector{w.depth, w.adds, w.latency, w.work, w.unfinished, w.longest, w.retries} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering workqueue metrics: %w", err)
		}
	}
	return w, nil
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (w *Workqueue) NewDepthMetric(q string) workqueue.Gauge { return w.depth.WithLabelValues(q) }

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
