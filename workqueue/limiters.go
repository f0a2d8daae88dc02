package workqueue

import (
	"hash/maphash"
	"math"
	"sync"
	"time"
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
