package shard

import (
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Option configures a Ring (New).
type Option func(*options)

type options struct {
	namespace       string
	leaseDuration   time.Duration
	renewDeadline   time.Duration
	retryPeriod     time.Duration
	virtualNodes    int
	releaseOnCancel bool
	log             logr.Logger
	clock           clock.WithTicker
}

// WithNamespace is the namespace of the ring's Leases (default "default",
// as the manager's leader election). Every replica of a ring must use the
// same one.
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithLeaseDuration is how long a member's Lease lasts without renewal
// before the others take its ranges (default 15 s, as leader election).
// The Lease holds whole seconds, so the duration must be one.
func WithLeaseDuration(d time.Duration) Option { return func(o *options) { o.leaseDuration = d } }

// WithRenewDeadline is how long a member keeps trying to renew its Lease
// before it stops starting reconciles (default 10 s, as leader election);
// it must be shorter than the lease duration, so that a member that cannot
// renew has stopped before the others can take its ranges.
func WithRenewDeadline(d time.Duration) Option { return func(o *options) { o.renewDeadline = d } }

// WithRetryPeriod is how often a member renews its Lease and looks for
// expired ones (default 2 s, as leader election); it must be shorter than
// the renew deadline.
func WithRetryPeriod(d time.Duration) Option { return func(o *options) { o.retryPeriod = d } }

// WithVirtualNodes is the number of points each member places on the ring
// (default DefaultVirtualNodes). More points spread the keyspace more
// evenly and make longer selectors. Every replica of a ring must use the
// same number: members that disagree still never reconcile one key at
// once, but may leave ranges unowned.
func WithVirtualNodes(n int) Option { return func(o *options) { o.virtualNodes = n } }

// WithReleaseOnCancel says whether Start, when its context ends, waits for
// the reconciles in progress and deletes the member's Lease so that the
// others take its ranges at once (true, the default). With false the
// Lease is left to expire, as after a crash: tests use it to simulate one.
func WithReleaseOnCancel(release bool) Option {
	return func(o *options) { o.releaseOnCancel = release }
}

// WithLogger sets the logger (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock that times renewals and judges expiry (tests
// pass a fake one).
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

func newOptions(opts []Option) (*options, error) {
	o := &options{
		namespace:       "default",
		leaseDuration:   15 * time.Second,
		renewDeadline:   10 * time.Second,
		retryPeriod:     2 * time.Second,
		virtualNodes:    DefaultVirtualNodes,
		releaseOnCancel: true,
		log:             logr.Discard(),
		clock:           clock.RealClock{},
	}
	for _, opt := range opts {
		opt(o)
	}
	switch {
	case o.namespace == "":
		return nil, fmt.Errorf("shard: WithNamespace: empty namespace")
	case o.leaseDuration < time.Second || o.leaseDuration%time.Second != 0:
		return nil, fmt.Errorf("shard: WithLeaseDuration(%v): want a whole number of seconds, at least 1", o.leaseDuration)
	case o.renewDeadline <= 0 || o.renewDeadline >= o.leaseDuration:
		return nil, fmt.Errorf("shard: WithRenewDeadline(%v): want more than 0 and less than the lease duration %v", o.renewDeadline, o.leaseDuration)
	case o.retryPeriod <= 0 || o.retryPeriod >= o.renewDeadline:
		return nil, fmt.Errorf("shard: WithRetryPeriod(%v): want more than 0 and less than the renew deadline %v", o.retryPeriod, o.renewDeadline)
	case o.virtualNodes < 1:
		return nil, fmt.Errorf("shard: WithVirtualNodes(%d): want at least 1", o.virtualNodes)
	case o.clock == nil:
		return nil, fmt.Errorf("shard: WithClock: nil clock")
	}
	if o.log.GetSink() == nil {
		o.log = logr.Discard()
	}
	return o, nil
}
