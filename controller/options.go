package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
	"github.com/steadyctl/steady/workqueue"
)

// Option configures a Controller.
type Option func(*options)

type options struct {
	workers          int
	limiter          workqueue.RateLimiter[reconcile.Request]
	recoverPanic     bool
	cacheSyncTimeout time.Duration
	reconcileTimeout time.Duration
	log              logr.Logger
	clock            clock.WithTicker
	metrics          workqueue.MetricsProvider
	reconcileMetrics Metrics

	priority              bool
	fair                  bool
	maxWait               time.Duration
	maxWaitSet            bool
	debounce, debounceMax time.Duration
	debounceSet           bool

	readYourWrites     bool
	readYourWritesWait time.Duration
	dropEchoes         bool

	ring        *shard.Ring // WithSharding
	shardHash   ShardHashFunc
	shardingSet bool
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

// ReasonMetrics is a Metrics that also counts reconciles by the reasons
// their requests were queued for (see reconcile.Reasons). metrics.Reconcile
// implements it.
type ReasonMetrics interface {
	Metrics
	// Reasons is called when a reconcile starts whose request was queued
	// for reasons, with all of them.
	Reasons(controller string, why reconcile.Reasons)
}

// WriteMetrics is a Metrics that also records how the controller waits
// for its caches to show its own writes (WithReadYourWrites) and the
// echoes of its writes it drops (WithDropOwnEchoes). metrics.Reconcile
// implements it.
type WriteMetrics interface {
	Metrics
	// Held is called when a request is first put back because its caches
	// do not show its writes.
	Held(controller string)
	// HoldEnded is called when a held request is reconciled, with how
	// long it was held and whether the wait bound ended the hold.
	HoldEnded(controller string, held time.Duration, timedOut bool)
	// EchoDropped is called for each echo of an own write dropped.
	EchoDropped(controller string)
}

func newOptions(opts []Option) *options {
	o := &options{
		workers:          1,
		recoverPanic:     true,
		cacheSyncTimeout: 2 * time.Minute,
		log:              logr.Discard(),
		clock:            clock.RealClock{},
		priority:         true,

		readYourWrites:     true,
		readYourWritesWait: DefaultReadYourWritesTimeout,
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
func WithRateLimiter(l workqueue.RateLimiter[reconcile.Request]) Option {
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

// WithPriorityQueue sets whether the work queue is a
// workqueue.PriorityQueue (default true), controller-runtime's
// UsePriorityQueue. It reconciles the requests of real changes before
// those of an informer's initial list and of resyncs, ages every request
// so that none waits longer than WithMaxWait behind higher priorities, can
// share the workers fairly between namespaces (WithFairness) and debounce
// bursts (WithDebounce), and records why each request was queued
// (reconcile.ReasonsFrom). false gives the plain first-in, first-out
// workqueue.RateLimitingQueue, which does none of that and costs some
// 100ns less per request; the options above are then an error.
func WithPriorityQueue(on bool) Option { return func(o *options) { o.priority = on } }

// WithMaxWait sets how long a request may be ready before it is overdue
// and takes turns with the requests of every priority (default
// workqueue.DefaultMaxWait, a minute): the bound on how long a stream of
// higher-priority requests can hold back one of lower priority, such as
// an initial-list request. It must be positive.
func WithMaxWait(d time.Duration) Option {
	return func(o *options) { o.maxWait, o.maxWaitSet = d, true }
}

// WithFairness sets whether the namespaces of requests take turns for the
// workers (default false): among requests of equal priority, each
// namespace with requests waiting gets one in turn, so one namespace's
// burst of thousands delays another namespace's single request by about
// one request per busy namespace, not by the whole burst.
// Cluster-scoped requests share one turn.
func WithFairness(on bool) Option { return func(o *options) { o.fair = on } }

// WithDebounce holds a request added by an event for window, and for
// window again after each further event for it, but never longer than
// maxDelay after the first (default: no debounce): a burst of changes to
// one object is reconciled once, at most maxDelay after it began.
// Requeues (errors, RequeueAfter) are not held. window must be positive
// and maxDelay at least window.
func WithDebounce(window, maxDelay time.Duration) Option {
	return func(o *options) { o.debounce, o.debounceMax, o.debounceSet = window, maxDelay, true }
}

// DefaultReadYourWritesTimeout is how long WithReadYourWrites holds a
// request for its caches at most, unless WithReadYourWritesTimeout says
// otherwise.
const DefaultReadYourWritesTimeout = 10 * time.Second

// WithReadYourWrites sets whether a reconcile waits for the caches to show
// the controller's own writes (default true): a reconcile of a request
// never starts on a cache older than the last write a reconcile of the
// same request made through package client, to the request's object or
// to any other (a child it created, updated or deleted). A request whose
// caches are behind is put back, without counting as a failure, and
// queued again the moment the informer has processed the write's
// resourceVersion (events and bookmarks count); after
// WithReadYourWritesTimeout it runs anyway, and the metrics say so
// (WriteMetrics). Within a reconcile, reads through package client show
// the reconcile's own writes at once (writes.ContextWithLog), with no
// wait and no request. Writes by others stay eventually consistent, as in
// any cache. See the package documentation.
func WithReadYourWrites(on bool) Option { return func(o *options) { o.readYourWrites = on } }

// WithReadYourWritesTimeout bounds how long WithReadYourWrites holds a
// request (default DefaultReadYourWritesTimeout): a cache that does not
// show a write by then is lagging badly, or cannot show it (an object its
// selector leaves out), and the reconcile runs on what it has. It must be
// positive.
func WithReadYourWritesTimeout(d time.Duration) Option {
	return func(o *options) { o.readYourWritesWait = d }
}

// WithDropOwnEchoes sets whether an update event that is the echo of the
// controller's own write is dropped (default false): the event whose new
// resourceVersion is the one a reconcile of the request it maps to got
// back from writing that object. It saves one reconcile per write, and is
// safe when that reconcile has nothing to do for the object's state that
// it wrote itself: when the object's only input to the reconcile is what
// the reconcile wrote, or when every write is followed by the reconcile's
// own requeue. Changes by others are never dropped: each arrives as an
// update of its own. Events mapped to other requests (another owner, a
// mapping handler) are not dropped either.
func WithDropOwnEchoes(on bool) Option { return func(o *options) { o.dropEchoes = on } }

// validate checks the options that can be wrong, naming the option.
func (o *options) validate() error {
	switch {
	case o.workers < 1:
		return fmt.Errorf("WithMaxConcurrentReconciles(%d): need at least 1", o.workers)
	case o.cacheSyncTimeout <= 0:
		return fmt.Errorf("WithCacheSyncTimeout(%s): must be positive", o.cacheSyncTimeout)
	case o.reconcileTimeout < 0:
		return fmt.Errorf("WithReconcileTimeout(%s): must not be negative", o.reconcileTimeout)
	case o.maxWaitSet && o.maxWait <= 0:
		return fmt.Errorf("WithMaxWait(%s): must be positive", o.maxWait)
	case o.debounceSet && o.debounce <= 0:
		return fmt.Errorf("WithDebounce(%s, %s): the window must be positive", o.debounce, o.debounceMax)
	case o.readYourWritesWait <= 0:
		return fmt.Errorf("WithReadYourWritesTimeout(%s): must be positive", o.readYourWritesWait)
	case o.debounceSet && o.debounceMax < o.debounce:
		return fmt.Errorf("WithDebounce(%s, %s): the maximum delay must be at least the window", o.debounce, o.debounceMax)
	case o.shardingSet && o.ring == nil:
		return errors.New("WithSharding: nil ring")
	case o.shardingSet && o.shardHash == nil:
		return fmt.Errorf("WithSharding(ring %q): nil hash func (controller.ShardByNamespace, or a lookup of the object's uid)", o.ring.Name())
	}
	if !o.priority {
		for _, opt := range []struct {
			name string
			set  bool
		}{{"WithMaxWait", o.maxWaitSet}, {"WithFairness(true)", o.fair}, {"WithDebounce", o.debounceSet}} {
			if opt.set {
				return fmt.Errorf("%s needs the priority queue, but WithPriorityQueue(false) was given", opt.name)
			}
		}
	}
	return nil
}
