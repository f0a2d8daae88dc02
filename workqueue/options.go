package workqueue

import (
	"fmt"
	"time"

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

	priority priorityOptions
}

// priorityOptions are the options only NewPriority takes.
type priorityOptions struct {
	maxWait          time.Duration
	window, maxDelay time.Duration
	given            []string // their names, for the other queues to log
}

func newOptions(opts []Option) *options {
	o := &options{clock: clock.RealClock{}, logger: logr.Discard()}
	o.priority.maxWait = DefaultMaxWait
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
	p := &o.priority
	if p.maxWait <= 0 {
		o.logger.Error(fmt.Errorf("workqueue: WithMaxWait(%v): %w", p.maxWait, errNotPositive),
			"Using the default", "queue", o.name, "maxWait", DefaultMaxWait)
		p.maxWait = DefaultMaxWait
	}
	if p.window < 0 || p.window > 0 && p.maxDelay < p.window {
		o.logger.Error(fmt.Errorf("workqueue: WithDebounce(%v, %v): %w", p.window, p.maxDelay, errDebounce),
			"Not debouncing", "queue", o.name)
		p.window, p.maxDelay = 0, 0
	}
	return o
}

// rejectPriorityOptions logs the options given to a queue that only
// NewPriority takes.
func (o *options) rejectPriorityOptions() {
	for _, name := range o.priority.given {
		o.logger.Error(fmt.Errorf("workqueue: %s: %w", name, errPriorityOnly), "Ignoring the option", "queue", o.name)
	}
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

// WithMaxWait sets how long an item of a PriorityQueue may be ready
// before it is overdue and takes turns with the items of every priority
// (default DefaultMaxWait, a minute). It bounds how long adds of higher priority
// can hold an item back: see PriorityQueue. A duration that is not
// positive is logged as an error and the default kept.
func WithMaxWait(d time.Duration) Option {
	return func(o *options) {
		o.priority.maxWait = d
		o.priority.given = append(o.priority.given, "WithMaxWait")
	}
}

// WithDebounce makes a PriorityQueue hold a plain add (Add, or
// AddWithOpts without RateLimited or a positive After) of an item that
// is not queued for window, and restart that wait on every further add,
// but not past maxDelay after the first: a burst of adds is handed out
// once, at most maxDelay after it began. Requeues (AddAfter,
// AddRateLimited, and AddWithOpts with RateLimited or a positive After)
// are not debounced; an item waiting for one becomes ready at the
// earlier of the two. The default is no debounce; a negative window, or
// a maxDelay shorter than window, is logged as an error and debouncing
// stays off.
func WithDebounce(window, maxDelay time.Duration) Option {
	return func(o *options) {
		o.priority.window, o.priority.maxDelay = window, maxDelay
		o.priority.given = append(o.priority.given, "WithDebounce")
	}
}
