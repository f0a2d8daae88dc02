package reflector

import (
	"math/rand/v2"
	"time"

	"k8s.io/utils/clock"
)

// backoff yields jittered, doubling delays, starting over once errors stop
// for a while, so a server restart is retried quickly but an outage is not
// hammered.
type backoff struct {
	clock           clock.PassiveClock
	min, max, reset time.Duration
	current         time.Duration
	last            time.Time
}

func newBackoff(c clock.PassiveClock, min, max, reset time.Duration) *backoff {
	return &backoff{clock: c, min: min, max: max, reset: reset}
}

func (b *backoff) next() time.Duration {
	now := b.clock.Now()
	if b.current == 0 || now.Sub(b.last) > b.reset {
		b.current = b.min
	} else {
		b.current = min(2*b.current, b.max)
	}
	b.last = now
	// Jitter in [current, 1.5*current) spreads out clients that failed together.
	return min(b.current+rand.N(b.current/2+1), b.max)
}
