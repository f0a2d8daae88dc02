package metrics

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/writes"
)

// Reconcile records what controllers do under controller-runtime's metric
// names, so existing dashboards and alerts work unchanged. It implements
// controller.Metrics.
type Reconcile struct {
	total, errors, terminal, panics *prometheus.CounterVec
	duration                        *prometheus.HistogramVec
	maxConcurrent, active           *prometheus.GaugeVec
	eventLatency                    *prometheus.HistogramVec
	reasons                         *prometheus.CounterVec
	held, holdTimeouts, echoes      *prometheus.CounterVec
	holdTime                        *prometheus.HistogramVec
}

// NewReconcile registers the reconcile metrics in reg, and
// steady_writes_unattributed_total, the process's count of writes through
// package client that no reconcile recorded (writes.Unattributed).
func NewReconcile(reg prometheus.Registerer) (*Reconcile, error) {
	r := &Reconcile{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total",
			Help: "Total number of reconciliations per controller."}, []string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_errors_total",
			Help: "Total number of reconciliation errors per controller."}, []string{"controller"}),
		terminal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total",
			Help: "Total number of terminal reconciliation errors per controller."}, []string{"controller"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_panics_total",
			Help: "Total number of reconciliation panics per controller."}, []string{"controller"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_reconcile_time_seconds",
			Help:    "Length of time per reconciliation per controller.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
		}, []string{"controller"}),
		maxConcurrent: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_max_concurrent_reconciles",
			Help: "Maximum number of concurrent reconciles per controller."}, []string{"controller"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_active_workers",
			Help: "Number of currently used workers per controller."}, []string{"controller"}),
		eventLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "steady_event_to_reconcile_seconds",
			Help:    "Time from an informer delivering an event to a controller to the start of the reconcile it caused.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20), // 100µs to about 52s
		}, []string{"controller"}),
		reasons: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "steady_reconcile_reasons_total",
			Help: "Reconciles per controller by a reason their request was queued for; a reconcile with several reasons counts once under each."},
			[]string{"controller", "reason"}),
		held: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "steady_reconcile_held_total",
			Help: "Requests per controller held back because a cache did not show the controller's own last write for them yet."},
			[]string{"controller"}),
		holdTimeouts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "steady_reconcile_hold_timeouts_total",
			Help: "Held requests per controller reconciled because the wait bound passed before the cache showed the write."},
			[]string{"controller"}),
		holdTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "steady_reconcile_hold_seconds",
			Help:    "How long held requests waited for a cache to show the controller's own writes.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16), // 1ms to about 33s
		}, []string{"controller"}),
		echoes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "steady_own_write_echoes_dropped_total",
			Help: "Update events per controller dropped as the echo of the controller's own write."},
			[]string{"controller"}),
	}
	unattributed := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "steady_writes_unattributed_total",
		Help: "Writes through steady's client made with a context that is not a reconcile's: no controller holds a reconcile until its cache shows them."},
		func() float64 { return float64(writes.Unattributed()) })
	for _, c := range []prometheus.Collector{r.total, r.errors, r.terminal, r.panics, r.duration, r.maxConcurrent, r.active, r.eventLatency, r.reasons, r.held, r.holdTimeouts, r.holdTime, r.echoes, unattributed} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering reconcile metrics: %w", err)
		}
	}
	return r, nil
}

// Started records a controller's worker count.
func (r *Reconcile) Started(controller string, workers int) {
	r.maxConcurrent.WithLabelValues(controller).Set(float64(workers))
	r.active.WithLabelValues(controller).Set(0)
	// Make every result series exist from the start, as dashboards expect.
	for _, res := range []string{"success", "error", "requeue_after"} {
		r.total.WithLabelValues(controller, res)
	}
	r.errors.WithLabelValues(controller)
	r.terminal.WithLabelValues(controller)
	r.panics.WithLabelValues(controller)
	r.held.WithLabelValues(controller)
	r.holdTimeouts.WithLabelValues(controller)
	r.echoes.WithLabelValues(controller)
}

// Begin records a reconcile starting.
func (r *Reconcile) Begin(controller string) { r.active.WithLabelValues(controller).Inc() }

// End records a reconcile's outcome: result is "success", "error" or
// "requeue_after"; terminal and panicked qualify an error.
func (r *Reconcile) End(controller, result string, terminal, panicked bool, took time.Duration) {
	r.active.WithLabelValues(controller).Dec()
	r.total.WithLabelValues(controller, result).Inc()
	r.duration.WithLabelValues(controller).Observe(took.Seconds())
	if result == "error" {
		r.errors.WithLabelValues(controller).Inc()
	}
	if terminal {
		r.terminal.WithLabelValues(controller).Inc()
	}
	if panicked {
		r.panics.WithLabelValues(controller).Inc()
	}
}

// EventToReconcile records the time from an event to the start of the
// reconcile it caused (controller.EventLatencyMetrics).
func (r *Reconcile) EventToReconcile(controller string, d time.Duration) {
	r.eventLatency.WithLabelValues(controller).Observe(d.Seconds())
}

// Reasons counts a reconcile once under each reason its request was
// queued for (controller.ReasonMetrics). The reason label takes at most
// reconcile.NumReasons values, the names of reconcile.Reasons.
func (r *Reconcile) Reasons(controller string, why reconcile.Reasons) {
	for rest := why; rest != 0; rest &= rest - 1 {
		r.reasons.WithLabelValues(controller, (rest & -rest).String()).Inc()
	}
}

// Held counts a request held for its caches (controller.WriteMetrics).
func (r *Reconcile) Held(controller string) { r.held.WithLabelValues(controller).Inc() }

// HoldEnded records how long a held request waited, and counts it if the
// wait bound ended the hold.
func (r *Reconcile) HoldEnded(controller string, held time.Duration, timedOut bool) {
	r.holdTime.WithLabelValues(controller).Observe(held.Seconds())
	if timedOut {
		r.holdTimeouts.WithLabelValues(controller).Inc()
	}
}

// EchoDropped counts an update event dropped as the echo of the
// controller's own write.
func (r *Reconcile) EchoDropped(controller string) { r.echoes.WithLabelValues(controller).Inc() }
