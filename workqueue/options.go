package workqueue

import (
	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Option configures a queue or a rate limiter built by this package.
type Option func(*options)

type options struct {
	name    string
	clock   clock.WithTicker
	logger  logr.Logger
	metrics MetricsProvider
}

func newOptions(opts []Option) *options {
	o := &options{clock: clock.RealClock{}, logger: logr.Discard()}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	// Report misuse only once every option is applied, so that the
	// message goes to the logger the caller chose, wherever it came in
	// the list.
	if o.clock == nil {
		o.clock = clock.RealClock{}
		o.logger.Error(errNilClock, "Using the real clock", "queue", o.name)
	}
	if o.metrics != nil && o.name == "" {
		o.metrics = nil
		o.logger.Error(errUnnamedMetrics, "Metrics disabled")
	}
	return o
}

// WithName names the queue. The name labels its metrics (which are only
// recorded for a named queue) and its log lines.
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithClock sets the clock the queue reads and sets timers on (default
// the real clock). Tests pass a k8s.io/utils/clock/testing.FakeClock to
// step through delays instead of sleeping. For NewBucketLimiter,
// NewSharedBucketLimiter and DefaultControllerRateLimiter it is the clock
// the token bucket refills by.
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

// WithLogger sets where the queue reports misuse, such as Done for an
// item that is not being processed (default logr.Discard()).
func WithLogger(l logr.Logger) Option { return func(o *options) { o.logger = l } }

// WithMetricsProvider records the queue's metrics through p. Metrics need
// a name (WithName); an unnamed queue logs an error and records none.
func WithMetricsProvider(p MetricsProvider) Option { return func(o *options) { o.metrics = p } }
