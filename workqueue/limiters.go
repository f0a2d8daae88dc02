package workqueue

import (
	"hash/maphash"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// RateLimiter decides how long a failed item waits before it is retried.
type RateLimiter[T comparable] interface {
	// When records one more failure of item and returns how long to wait
	// before retrying it.
	When(item T) time.Duration
	// Forget clears item's failures, typically after it succeeded.
	Forget(item T)
	// NumRequeues returns the failures recorded for item since it was last
	// forgotten.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter returns the limiter controllers are used
// to: per-item exponential backoff from 5ms doubling up to 1000s,
// combined by NewMaxOfLimiter with an overall token bucket of 10 retries
// per second and bursts of 100. Only WithClock applies from opts.
func DefaultControllerRateLimiter[T comparable](opts ...Option) RateLimiter[T] {
	return NewMaxOfLimiter(
		NewExponentialLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewBucketLimiter[T](10, 100, opts...),
	)
}

// failures counts the failures of each item for the per-item limiters.
// Its zero value is ready to use.
type failures[T comparable] struct {
	mu    sync.Mutex
	count table[T, int]
}

// failureSeed seeds the hashes of every failure count table. One seed
// per process is as hard to guess as one per table, and lets a limiter's
// zero value work.
var failureSeed = maphash.MakeSeed()

// add records a failure of item and returns the count before it.
func (f *failures[T]) add(item T) int {
	h := hashItem(failureSeed, item)
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.count.upsert(h, item)
	prev := *n
	if prev < math.MaxInt { // saturate: a count that wrapped would reset the backoff
		*n++
	}
	return prev
}

func (f *failures[T]) forget(item T) {
	h := hashItem(failureSeed, item)
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := f.count.find(h, item); i >= 0 {
		f.count.deleteAt(i)
	}
}

func (f *failures[T]) get(item T) int {
	h := hashItem(failureSeed, item)
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := f.count.find(h, item); i >= 0 {
		return *f.count.at(i)
	}
	return 0
}

// ExponentialLimiter waits base * 2^failures before each retry of an
// item, never more than maxDelay. Create one with NewExponentialLimiter.
type ExponentialLimiter[T comparable] struct {
	base, maxDelay time.Duration
	failures       failures[T]
}

// NewExponentialLimiter returns a limiter whose first delay for an item
// is base, doubling with each failure up to maxDelay. Negative durations
// are treated as zero.
func NewExponentialLimiter[T comparable](base, maxDelay time.Duration) *ExponentialLimiter[T] {
	return &ExponentialLimiter[T]{base: nonNegative(base), maxDelay: nonNegative(maxDelay)}
}

// When records a failure of item and returns its backoff.
func (l *ExponentialLimiter[T]) When(item T) time.Duration {
	return backoff(l.base, l.maxDelay, l.failures.add(item))
}

// Forget clears item's failures, so its next delay is base again.
func (l *ExponentialLimiter[T]) Forget(item T) { l.failures.forget(item) }

// NumRequeues returns the failures recorded for item.
func (l *ExponentialLimiter[T]) NumRequeues(item T) int { return l.failures.get(item) }

// backoff returns min(base * 2^n, maxDelay) without overflowing, for
// any n >= 0.
func backoff(base, maxDelay time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	if n >= 63 || base > maxDelay>>n {
		return maxDelay
	}
	return base << n
}

func nonNegative(d time.Duration) time.Duration { return max(d, 0) }

// FastSlowLimiter retries an item quickly a few times and slowly after
// that. Create one with NewFastSlowLimiter.
type FastSlowLimiter[T comparable] struct {
	fast, slow time.Duration
	maxFast    int
	failures   failures[T]
}

// NewFastSlowLimiter returns a limiter that waits fast before each of an
// item's first maxFast retries and slow before every later one. Negative
// durations are treated as zero.
func NewFastSlowLimiter[T comparable](fast, slow time.Duration, maxFast int) *FastSlowLimiter[T] {
	return &FastSlowLimiter[T]{fast: nonNegative(fast), slow: nonNegative(slow), maxFast: maxFast}
}

// When records a failure of item and returns fast or slow.
func (l *FastSlowLimiter[T]) When(item T) time.Duration {
	if l.failures.add(item) < l.maxFast {
		return l.fast
	}
	return l.slow
}

// Forget clears item's failures, so it is retried fast again.
func (l *FastSlowLimiter[T]) Forget(item T) { l.failures.forget(item) }

// NumRequeues returns the failures recorded for item.
func (l *FastSlowLimiter[T]) NumRequeues(item T) int { return l.failures.get(item) }

// MaxOfLimiter combines limiters: an item waits as long as the slowest of
// them says. Create one with NewMaxOfLimiter.
//
// When asks every limiter, so a bucket among them gives up a token on
// every retry even when another limiter's per-item backoff is longer.
// That is deliberate, and the same as client-go: handing the token back
// whenever backoff dominates would exempt exactly the case the bucket is
// for. When many items fail together they share one backoff step, every
// one of them would return its token, and all would be retried at the
// same instant, unthrottled.
type MaxOfLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOfLimiter returns a limiter that consults all of limiters. Nil
// entries are skipped.
func NewMaxOfLimiter[T comparable](limiters ...RateLimiter[T]) *MaxOfLimiter[T] {
	l := &MaxOfLimiter[T]{}
	for _, r := range limiters {
		if r != nil {
			l.limiters = append(l.limiters, r)
		}
	}
	return l
}

// When records a failure with every limiter and returns the longest delay.
func (l *MaxOfLimiter[T]) When(item T) time.Duration {
	var d time.Duration
	for _, r := range l.limiters {
		d = max(d, r.When(item))
	}
	return d
}

// Forget forgets item in every limiter.
func (l *MaxOfLimiter[T]) Forget(item T) {
	for _, r := range l.limiters {
		r.Forget(item)
	}
}

// NumRequeues returns the largest count any limiter reports for item.
func (l *MaxOfLimiter[T]) NumRequeues(item T) int {
	n := 0
	for _, r := range l.limiters {
		n = max(n, r.NumRequeues(item))
	}
	return n
}

// BucketLimiter limits retries of all items together with a token bucket,
// a golang.org/x/time/rate Limiter: each When reserves one token and
// returns how long until it is available (0 while the bucket has one), as
// client-go's BucketRateLimiter does. It keeps no per-item state. Create
// one with NewBucketLimiter, or with NewSharedBucketLimiter to draw from a
// *rate.Limiter that other code uses too.
//
// The zero value limits nothing: every When returns 0.
type BucketLimiter[T comparable] struct {
	limiter *rate.Limiter
	clock   clock.PassiveClock
	epoch   time.Time
}

// NewBucketLimiter returns a bucket that refills at limit tokens per
// second and holds at most burst tokens, full at first. A burst below 1 is
// raised to 1, since a bucket that holds no token would never allow a
// retry. rate.Inf never delays; a limit of zero or below (or NaN) never
// refills, so once burst tokens are taken every When returns
// rate.InfDuration. Only WithClock applies from opts.
func NewBucketLimiter[T comparable](limit rate.Limit, burst int, opts ...Option) *BucketLimiter[T] {
	if !(limit > 0) {
		limit = 0 // rate.Limiter would treat NaN as no limit at all
	}
	return newBucketLimiter[T](rate.NewLimiter(limit, max(burst, 1)), newOptions(opts))
}

// NewSharedBucketLimiter returns a bucket that takes its tokens from lim,
// which the caller may share with other code or reconfigure with
// SetLimit and SetBurst while the queue runs. Each When reserves one token
// from lim at the time of the WithClock clock; a lim with a burst of 0 has
// no token to give, so every When returns rate.InfDuration. A nil lim is
// logged as an error (WithLogger) and replaced by a bucket of 10 tokens per
// second and bursts of 100, the default controller's.
func NewSharedBucketLimiter[T comparable](lim *rate.Limiter, opts ...Option) *BucketLimiter[T] {
	o := newOptions(opts)
	if lim == nil {
		o.logger.Error(errNilRateLimiter, "Using a bucket of 10 tokens per second, bursts of 100")
		lim = rate.NewLimiter(10, 100)
	}
	return newBucketLimiter[T](lim, o)
}

func newBucketLimiter[T comparable](lim *rate.Limiter, o *options) *BucketLimiter[T] {
	return &BucketLimiter[T]{limiter: lim, clock: o.clock, epoch: o.clock.Now()}
}

// When takes a token and returns how long until it is available.
func (l *BucketLimiter[T]) When(T) time.Duration {
	if l.limiter == nil {
		return 0
	}
	// Since reads one clock where Now reads two, and the result keeps the
	// monotonic reading that rate.Limiter subtracts.
	now := l.epoch.Add(l.clock.Since(l.epoch))
	// AllowN takes a token when one is there, the usual case, and does not
	// allocate a Reservation; when it fails it changes nothing, and the
	// reservation takes the next token to come.
	if l.limiter.AllowN(now, 1) {
		return 0
	}
	return l.limiter.ReserveN(now, 1).DelayFrom(now)
}

// Forget does nothing: the bucket has no per-item state.
func (l *BucketLimiter[T]) Forget(T) {}

// NumRequeues returns 0: the bucket does not count per item.
func (l *BucketLimiter[T]) NumRequeues(T) int { return 0 }
