package workqueue

import (
	"math"
	"math/bits"

	"golang.org/x/time/rate"
)

// nanos is a time or a duration in nanoseconds with a 64-bit binary
// fraction: ns + frac/2^64. The fraction lets a token bucket that refills
// faster than once per nanosecond add up its refill interval exactly.
type nanos struct {
	ns   int64
	frac uint64
}

// maxNanos is where sums saturate: about 292 years.
var maxNanos = nanos{math.MaxInt64, math.MaxUint64}

// nanosPerToken returns 1/limit seconds for a positive limit: zero for
// rate.Inf, maxNanos for a limit that slow. It starts from 1e9/limit in
// float64, as exact as rate.Limiter's own arithmetic; splitting that into
// whole nanoseconds and a fraction loses nothing.
func nanosPerToken(limit rate.Limit) nanos {
	s := 1e9 / float64(limit)
	if s >= math.MaxInt64 {
		return maxNanos
	}
	whole := math.Floor(s)
	return nanos{int64(whole), uint64((s - whole) * (1 << 64))}
}

// plus returns a+b, saturating at maxNanos. b must not be negative.
func (a nanos) plus(b nanos) nanos {
	frac, carry := bits.Add64(a.frac, b.frac, 0)
	if a.ns > math.MaxInt64-b.ns-int64(carry) {
		return maxNanos
	}
	return nanos{a.ns + b.ns + int64(carry), frac}
}

// minus returns a-b. It cannot overflow for a and b between 0 and
// maxNanos, which is how it is used.
func (a nanos) minus(b nanos) nanos {
	frac, borrow := bits.Sub64(a.frac, b.frac, 0)
	return nanos{a.ns - b.ns - int64(borrow), frac}
}

// times returns a*n, saturating at maxNanos. a and n must not be negative.
func (a nanos) times(n int) nanos {
	carry, frac := bits.Mul64(a.frac, uint64(n))
	hi, whole := bits.Mul64(uint64(a.ns), uint64(n))
	whole, c := bits.Add64(whole, carry, 0)
	if hi != 0 || c != 0 || whole > math.MaxInt64 {
		return maxNanos
	}
	return nanos{int64(whole), frac}
}

// later returns the later of a and b.
func (a nanos) later(b nanos) nanos {
	if b.ns > a.ns || b.ns == a.ns && b.frac > a.frac {
		return b
	}
	return a
}
