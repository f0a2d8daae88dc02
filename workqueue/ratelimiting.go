package workqueue

// RateLimitingQueue is a DelayingQueue that delays failed items as its
// RateLimiter says. A worker calls AddRateLimited when processing an item
// failed, and Forget when it succeeded, so that the item's next failure
// starts again from the shortest delay. Create one with NewRateLimiting.
type RateLimitingQueue[T comparable] struct {
	DelayingQueue[T]
	limiter RateLimiter[T]
}

// NewRateLimiting returns an empty rate-limiting queue that asks limiter
// for delays, and starts its timer goroutine. A nil limiter is logged as
// an error and replaced by DefaultControllerRateLimiter on the queue's
// clock.
func NewRateLimiting[T comparable](limiter RateLimiter[T], opts ...Option) *RateLimitingQueue[T] {
	o := newOptions(opts)
	q := &RateLimitingQueue[T]{limiter: limiterOrDefault(limiter, o)}
	q.init(o)
	return q
}

// AddRateLimited records a failure of item with the rate limiter and adds
// item after the delay it returns (see AddAfter). The limiter is asked even
// after shutdown, when the item itself is dropped.
func (q *RateLimitingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget clears item's failures in the rate limiter. It does not remove
// item from the queue.
func (q *RateLimitingQueue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the failures the rate limiter has recorded for item.
func (q *RateLimitingQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// limiterOrDefault returns limiter, or if it is nil logs that and returns
// DefaultControllerRateLimiter on the queue's clock.
func limiterOrDefault[T comparable](limiter RateLimiter[T], o *options) RateLimiter[T] {
	if limiter == nil {
		o.logger.Error(errNilLimiter, "Using DefaultControllerRateLimiter", "queue", o.name)
		return DefaultControllerRateLimiter[T](WithClock(o.clock))
	}
	return limiter
}
