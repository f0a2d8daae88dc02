package cluster

import (
	"fmt"

	"k8s.io/client-go/rest"
)

// Throttle is client-side rate limiting of the requests a process makes
// to the API server: a token bucket that refills at QPS requests per
// second and holds Burst of them. A negative QPS turns client-side
// throttling off. It is rest.Config's QPS and Burst, as a value that can be
// named, checked and printed.
type Throttle struct {
	QPS   float32 // requests per second on average; negative: no limit
	Burst int     // requests allowed at once above the average; ignored when QPS is negative
}

var (
	// DefaultThrottle is what LoadConfig sets, and what manager.New sets on
	// a config that has no throttling of its own: 20 requests/s, burst 30,
	// as controller-runtime does when it loads a config. client-go's 5/s
	// is tuned for kubectl; an operator that starts several informers and
	// writes status makes more requests than that in a normal second, and
	// a throttled reconciler is slow for reasons no log shows.
	DefaultThrottle = Throttle{QPS: 20, Burst: 30}
	// ClientGoThrottle is client-go's default (rest.DefaultQPS and
	// rest.DefaultBurst: 5 requests/s, burst 10), what a rest.Config
	// with QPS and Burst left at 0 gets; pass it to keep that behaviour.
	ClientGoThrottle = Throttle{QPS: rest.DefaultQPS, Burst: rest.DefaultBurst}
	// NoThrottle turns client-side throttling off (QPS -1). Servers since
	// Kubernetes 1.29 protect themselves with API Priority and Fairness,
	// which queues or rejects (429) requests by priority level; against
	// them the client's own limit only adds latency.
	NoThrottle = Throttle{QPS: -1}
)

// Validate reports a Throttle that client-go would refuse or silently
// change: QPS 0 (client-go reads it as "use my default of 5"; say
// ClientGoThrottle), or a positive QPS with a Burst below 1 (a bucket that
// holds no request).
func (t Throttle) Validate() error {
	switch {
	case t.QPS == 0:
		return fmt.Errorf("throttle %s: QPS 0 means client-go's default; use cluster.ClientGoThrottle to ask for it, or a negative QPS for none", t)
	case t.QPS > 0 && t.Burst < 1:
		return fmt.Errorf("throttle %s: a positive QPS needs a Burst of at least 1", t)
	}
	return nil
}

// Apply sets cfg's client-side throttling to t. It clears cfg.RateLimiter,
// which would otherwise take precedence over QPS and Burst.
func (t Throttle) Apply(cfg *rest.Config) {
	cfg.QPS, cfg.Burst, cfg.RateLimiter = t.QPS, t.Burst, nil
	if t.QPS < 0 {
		cfg.Burst = 0
	}
}

// String says what t does, e.g. "20 requests/s, burst 30" or "off".
func (t Throttle) String() string {
	if t.QPS < 0 {
		return "off"
	}
	return fmt.Sprintf("%g requests/s, burst %d", t.QPS, t.Burst)
}

// HasThrottle reports whether cfg says how to throttle: a QPS, a Burst or
// a RateLimiter of its own. A config without any gets client-go's default
// (ClientGoThrottle) from client-go, and DefaultThrottle from manager.New.
func HasThrottle(cfg *rest.Config) bool {
	return cfg.QPS != 0 || cfg.Burst != 0 || cfg.RateLimiter != nil
}

// ThrottleOf returns the throttling that clients made from cfg get, with
// client-go's defaults filled in for a QPS or Burst left at 0. It returns
// false when cfg.RateLimiter is set: that limiter decides, and QPS and
// Burst are ignored.
func ThrottleOf(cfg *rest.Config) (Throttle, bool) {
	if cfg.RateLimiter != nil {
		return Throttle{}, false
	}
	t := Throttle{QPS: cfg.QPS, Burst: cfg.Burst}
	if t.QPS < 0 {
		return NoThrottle, true
	}
	if t.QPS == 0 {
		t.QPS = rest.DefaultQPS
	}
	if t.Burst == 0 {
		t.Burst = rest.DefaultBurst
	}
	return t, true
}
