package workqueue

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// BucketLimiter limits retries of all items together with a token bucket:
// it holds at most burst tokens, refills at limit tokens per second, and
// each When takes one token and returns how long until that token is
// there (0 while the bucket has one). It keeps no per-item state. Create
// one with NewBucketLimiter, or with NewSharedBucketLimiter to draw from a
// *rate.Limiter that other code uses too.
//
// A bucket from NewBucketLimiter returns the delays a golang.org/x/time/rate
// Limiter with the same limit and burst returns from ReserveN, as a test
// checks on random schedules. It computes them itself: a retry is the hot
// path of a failing controller, and the bucket is one clock read and a few
// integer operations under a lock where rate.Limiter adds floating point,
// time.Time arithmetic and a Reservation, which took about three times as
// long per retry in the bench module.
//
// The bucket is kept as the time it last was, or will next be, empty:
// each When moves that time one refill interval later, and waits until
// it, or not at all if it is not after now. Times are in nanoseconds with a
// 64-bit binary fraction, so buckets that refill faster than once per
// nanosecond count exactly too. The bucket holds at most 292 years of
// refill (a larger burst at a slow rate is cut to that), and a delay
// longer than that is rate.InfDuration, as from rate.Limiter.
//
// The zero value limits nothing: every When returns 0.
type BucketLimiter[T comparable] struct {
	clock clock.PassiveClock
	epoch time.Time

	shared *rate.Limiter // from NewSharedBucketLimiter; the fields below are then unused

	step   nanos // how long one token takes to refill; zero: tokens are never missing
	window nanos // how long a full bucket takes to refill from empty
	never  bool  // the limit is not positive: the burst is all there is

	mu    sync.Mutex
	empty nanos // since epoch: when the bucket had, or will have, no token
	left  int   // with never: the tokens not yet taken
}

// NewBucketLimiter returns a bucket that refills at limit tokens per
// second and holds at most burst tokens, full at first. A burst below 1 is
// raised to 1, since a bucket that holds no token would never allow a
// retry. rate.Inf never delays; a limit of zero or below (or NaN) never
// refills, so once burst tokens are taken every When returns
// rate.InfDuration. Only WithClock applies from opts.
func NewBucketLimiter[T comparable](limit rate.Limit, burst int, opts ...Option) *BucketLimiter[T] {
	o := newOptions(opts)
	burst = max(burst, 1)
	l := &BucketLimiter[T]{clock: o.clock, epoch: o.clock.Now()}
	if !(limit > 0) {
		l.never, l.left = true, burst
		return l
	}
	l.step = nanosPerToken(limit)
	l.window = l.step.times(burst)
	l.empty = nanos{}.minus(l.window) // full at epoch
	return l
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
		return NewBucketLimiter[T](10, 100, WithClock(o.clock))
	}
	return &BucketLimiter[T]{clock: o.clock, epoch: o.clock.Now(), shared: lim}
}

// When takes a token and returns how long until it is available.
func (l *BucketLimiter[T]) When(T) time.Duration {
	switch {
	case l.shared != nil:
		return l.whenShared()
	case l.never:
		return l.whenNever()
	case l.step == (nanos{}): // rate.Inf, or too fast for a token ever to be missing
		return 0
	}
	// Since on a time with a monotonic reading reads one clock where Now
	// reads two, and the clock read is a good part of a retry's cost.
	now := nanos{ns: int64(l.clock.Since(l.epoch))}
	l.mu.Lock()
	// A bucket that has been full since before now-window lost the
	// tokens it could not hold: refilling starts from now-window.
	empty := l.empty.later(now.minus(l.window)).plus(l.step)
	l.empty = empty
	l.mu.Unlock()
	if empty.ns == math.MaxInt64 {
		return rate.InfDuration
	}
	return time.Duration(max(empty.ns-now.ns, 0)) // rounded down, as rate.Limiter does
}

// whenShared reserves a token from the caller's rate.Limiter.
func (l *BucketLimiter[T]) whenShared() time.Duration {
	now := l.epoch.Add(l.clock.Since(l.epoch))
	// AllowN takes a token when one is there, the usual case, and costs
	// less than a reservation; a reservation takes the next token to come.
	if l.shared.AllowN(now, 1) {
		return 0
	}
	return l.shared.ReserveN(now, 1).DelayFrom(now)
}

// whenNever takes one of the tokens of a bucket that never refills.
func (l *BucketLimiter[T]) whenNever() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.left == 0 {
		return rate.InfDuration
	}
	l.left--
	return 0
}

// Forget does nothing: the bucket has no per-item state.
func (l *BucketLimiter[T]) Forget(T) {}

// NumRequeues returns 0: the bucket does not count per item.
func (l *BucketLimiter[T]) NumRequeues(T) int { return 0 }
