package metrics

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Webhook records what a webhook server answers under controller-runtime's
// metric names: controller_runtime_webhook_requests_total{webhook,code},
// controller_runtime_webhook_latency_seconds{webhook} and
// controller_runtime_webhook_requests_in_flight{webhook}, the webhook
// being the path it is served at. It implements webhook.Metrics.
type Webhook struct {
	total    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
}

// NewWebhook registers the webhook metrics in reg.
func NewWebhook(reg prometheus.Registerer) (*Webhook, error) {
	w := &Webhook{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_webhook_requests_total",
			Help: "Total number of admission requests by HTTP status code."}, []string{"webhook", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_webhook_latency_seconds",
			Help: "Histogram of the latency of processing admission requests"}, []string{"webhook"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_webhook_requests_in_flight",
			Help: "Current number of admission requests being served."}, []string{"webhook"}),
	}
	for _, c := range []prometheus.Collector{w.total, w.latency, w.inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering webhook metrics: %w", err)
		}
	}
	return w, nil
}

// Begin counts a request for webhook in flight.
func (w *Webhook) Begin(webhook string) { w.inFlight.WithLabelValues(webhook).Inc() }

// End records a request for webhook answered with code after took.
func (w *Webhook) End(webhook string, code int, took time.Duration) {
	w.inFlight.WithLabelValues(webhook).Dec()
	w.total.WithLabelValues(webhook, strconv.Itoa(code)).Inc()
	w.latency.WithLabelValues(webhook).Observe(took.Seconds())
}
