package controller

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/workqueue"
)

// Option configures a Controller.
type Option func(*options)

type options struct {
	workers          int
	limiter          workqueue.RateLimiter[Request]
	recoverPanic     bool
	cacheSyncTimeout time.Duration
	reconcileTimeout time.Duration
	log              logr.Logger
	clock            clock.WithTicker
	metrics          workqueue.MetricsProvider
	reconcileMetrics Metrics
}

// Metrics receives what a controller does; metrics.Reconcile records it in
// Prometheus under controller-runtime's names.
type Metrics interface {
	// Started is called once, when the workers start.
	Started(controller string, workers int)
	// Begin is called when a reconcile starts.
	Begin(controller string)
	// End is called when it ends: result is "success", "error" or
	// "requeue_after"; terminal and panicked qualify an error.
	End(controller, result string, terminal, panicked bool, took time.Duration)
}

func newOptions(opts []Option) *options {
	o := &options{
		workers:          1,
		recoverPanic:     true,
		cacheSyncTimeout: 2 * time.Minute,
		log:              logr.Discard(),
		clock:            clock.RealClock{},
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithMaxConcurrentReconciles sets how many requests are reconciled at once
// (default 1). A request is never reconciled by two workers at the same time.
func WithMaxConcurrentReconciles(n int) Option { return func(o *options) { o.workers = n } }

// WithRateLimiter sets how failed requests back off (default
// workqueue.DefaultControllerRateLimiter).
func WithRateLimiter(l workqueue.RateLimiter[Request]) Option {
	return func(o *options) { o.limiter = l }
}

// WithRecoverPanic sets whether a panicking Reconcile is recovered and
// counted as an error (default true) or crashes the process.
func WithRecoverPanic(recover bool) Option { return func(o *options) { o.recoverPanic = recover } }

// WithCacheSyncTimeout bounds how long Start waits for its sources' caches
// (default 2 minutes).
func WithCacheSyncTimeout(d time.Duration) Option { return func(o *options) { o.cacheSyncTimeout = d } }

// WithReconcileTimeout gives every Reconcile call a context with this
// deadline (default none).
func WithReconcileTimeout(d time.Duration) Option { return func(o *options) { o.reconcileTimeout = d } }

// WithLogger sets the logger; each reconcile gets it with the controller
// name, the request and a reconcile ID attached.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock of the work queue (tests pass a fake one).
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

// WithMetrics sets where the controller reports reconcile metrics.
func WithMetrics(m Metrics) Option { return func(o *options) { o.reconcileMetrics = m } }

// WithMetricsProvider sets where the work queue reports its metrics.
func WithMetricsProvider(p workqueue.MetricsProvider) Option {
	return func(o *options) { o.metrics = p }
}
