package workqueue

import "errors"

// Misuse is logged, never returned or panicked on, so that the queue's
// methods keep client-go's signatures and its hot path stays free of error
// handling. These are the errors the log lines carry.
var (
	errNotProcessing  = errors.New("workqueue: Done for an item that is not being processed")
	errNilClock       = errors.New("workqueue: WithClock(nil)")
	errUnnamedMetrics = errors.New("workqueue: WithMetricsProvider needs WithName")
	errNilLimiter     = errors.New("workqueue: a nil RateLimiter")
	errNilRateLimiter = errors.New("workqueue: NewSharedBucketLimiter with a nil *rate.Limiter")
	errNotPositive    = errors.New("must be positive")
	errDebounce       = errors.New("window must not be negative, nor longer than maxDelay")
	errPriorityOnly   = errors.New("applies to NewPriority only")
)
