package reflector

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/object"
)

// Option configures a Reflector.
type Option func(*options)

type options struct {
	name         string
	log          logr.Logger
	clock        clock.WithTicker
	eventClock   clock.PassiveClock // nil: clock
	transform    any                // func(T) (T, error), checked by New
	resync       time.Duration
	minWatch     time.Duration
	maxWatch     time.Duration
	deadWatch    time.Duration
	pageSize     int64
	initialRV    string
	shard        string
	watchList    WatchListMode
	streamGuard  time.Duration
	onError      func(error)
	backoffMin   time.Duration
	backoffMax   time.Duration
	backoffReset time.Duration
}

func newOptions(opts []Option) *options {
	o := &options{
		name:         "reflector",
		log:          logr.Discard(),
		clock:        clock.RealClock{},
		minWatch:     5 * time.Minute,
		maxWatch:     10 * time.Minute,
		deadWatch:    3 * time.Minute, // three missed bookmarks (sent about every minute)
		pageSize:     500,
		streamGuard:  30 * time.Second,
		backoffMin:   800 * time.Millisecond,
		backoffMax:   30 * time.Second,
		backoffReset: 2 * time.Minute,
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithName names the reflector in logs and errors (use the resource).
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithLogger sets the logger (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock for timeouts and backoff (tests pass a fake one).
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

// WithEventClock sets the clock that times what arrives from the API
// server, as LastEventTime reports it (default: the WithClock clock). An
// informer passes its own, so that its Progress and the reflector's
// LastEventTime are one reading per event on the informer's clock, while
// timeouts and backoff stay on the reflector's.
func WithEventClock(c clock.PassiveClock) Option { return func(o *options) { o.eventClock = c } }

// WithTransform sets a function applied exactly once to every object before
// the store sees it, on every path (list, watch, streamed list), so it may
// modify the object in place. T must match the reflector's type.
func WithTransform[T object.Object](fn func(T) (T, error)) Option {
	return func(o *options) { o.transform = fn }
}

// WithResyncPeriod calls the store's Resync every d (default never).
func WithResyncPeriod(d time.Duration) Option { return func(o *options) { o.resync = d } }

// WithWatchTimeout sets the bounds of the random timeout each watch request
// asks the server for (default 5 to 10 minutes). Spreading them keeps many
// clients from re-watching at once after a server restart.
func WithWatchTimeout(min, max time.Duration) Option {
	return func(o *options) { o.minWatch, o.maxWatch = min, max }
}

// WithDeadWatchTimeout sets how long a watch may deliver nothing, not even a
// bookmark, before it is considered dead and restarted (default 3 minutes;
// kube-apiserver sends bookmarks about every minute).
func WithDeadWatchTimeout(d time.Duration) Option { return func(o *options) { o.deadWatch = d } }

// WithPageSize sets the list page size (default 500; 0 lists in one piece).
func WithPageSize(n int64) Option { return func(o *options) { o.pageSize = n } }

// WithInitialListResourceVersion sets the resourceVersion of the first list.
// The default "" is a consistent read: never older than the cluster's
// current state. "0" lets the server answer from its cache at any age, which
// is cheaper but can go back in time after a restart (a stale read).
func WithInitialListResourceVersion(rv string) Option {
	return func(o *options) { o.initialRV = rv }
}

// WithShardSelector lists and watches only the objects of one shard:
// those whose metadata.uid (or metadata.namespace) hashes into the
// selector's ranges, in the API server's syntax (see ParseShardSelector),
// for example
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//
// The selector goes to the server as ListOptions.ShardSelector, and the
// reflector also checks every object itself with the server's hash: a
// server without the ShardedListAndWatch feature gate ignores the selector
// and sends every object, and the reflector then drops those outside the
// shard, so the store holds the same objects either way (ShardMode tells
// which happened). Default "": every object. A malformed selector is an
// error of New naming this option.
func WithShardSelector(sel string) Option { return func(o *options) { o.shard = sel } }

// WatchListMode chooses how the reflector gets its complete lists.
type WatchListMode int

const (
	// WatchListAuto streams the list when the ListerWatcher supports it and
	// falls back to list+watch for good when the server does not.
	WatchListAuto WatchListMode = iota
	// WatchListOff always uses paged lists.
	WatchListOff
	// WatchListOn streams the list even when the ListerWatcher does not say
	// it can (a wrapper that hides a real client's StreamingLister). The
	// guard still applies: a server that does not stream is detected and
	// the reflector falls back to list+watch for good.
	WatchListOn
)

// WithWatchList sets the list mode (default WatchListAuto).
func WithWatchList(m WatchListMode) Option { return func(o *options) { o.watchList = m } }

// WithStreamGuard bounds how long a streamed list may go without any event
// before the server is taken not to support streaming (default 30s).
func WithStreamGuard(d time.Duration) Option { return func(o *options) { o.streamGuard = d } }

// WithWatchErrorHandler sets a function called with every list or watch
// error before the reflector backs off and retries.
func WithWatchErrorHandler(fn func(error)) Option { return func(o *options) { o.onError = fn } }

// WithBackoff sets the retry backoff after errors: from min doubling up to
// max, with jitter, back to min once no error has occurred for reset
// (default 800ms, 30s, 2m).
func WithBackoff(min, max, reset time.Duration) Option {
	return func(o *options) { o.backoffMin, o.backoffMax, o.backoffReset = min, max, reset }
}
