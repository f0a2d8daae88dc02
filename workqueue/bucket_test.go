package workqueue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestBucketLimiter(t *testing.T) {
	clock := newFakeClock()
	l := NewBucketLimiter[string](1, 2, WithClock(clock)) // 1 token/s, burst 2
	for i, want := range []time.Duration{0, 0, time.Second, 2 * time.Second} {
		if got := l.When("any"); got != want {
			t.Fatalf("call %d: When = %v, want %v", i+1, got, want)
		}
	}
	clock.Step(10 * time.Second) // refills to the burst, not beyond
	for i, want := range []time.Duration{0, 0, time.Second} {
		if got := l.When("other"); got != want {
			t.Fatalf("after refill, call %d: When = %v, want %v", i+1, got, want)
		}
	}
	l.Forget("any")
	if got := l.NumRequeues("any"); got != 0 {
		t.Fatalf("NumRequeues = %d, want 0", got)
	}
}

func TestBucketLimiterBurstBelowOne(t *testing.T) {
	l := NewBucketLimiter[string](1, 0, WithClock(newFakeClock()))
	if got := l.When("a"); got != 0 {
		t.Fatalf("When = %v, want 0: burst 0 is raised to 1", got)
	}
	if got := l.When("a"); got != time.Second {
		t.Fatalf("When = %v, want 1s", got)
	}
}

// The bucket must say what golang.org/x/time/rate says for the same limit
// and burst, on random schedules of bursts, waits and idle spells: the
// same delay, up to what rate's float64 arithmetic can be off by (a
// nanosecond, or a few parts in 2^52 of a long delay).
func TestBucketLimiterMatchesRate(t *testing.T) {
	for _, tc := range []struct {
		limit rate.Limit
		burst int
	}{
		{1, 1}, {1, 2}, {10, 100}, {3, 7}, {0.5, 1}, {1e-3, 2},
		{1e9, 5}, {7e8, 3}, {1e12, 1000}, // refill faster than once per nanosecond
		{rate.Inf, 1}, {0, 3}, {-1, 2},
	} {
		t.Run(fmt.Sprintf("limit=%g/burst=%d", tc.limit, tc.burst), func(t *testing.T) {
			interval := time.Second
			if tc.limit > 0 && tc.limit != rate.Inf {
				interval = max(time.Duration(float64(time.Second)/float64(tc.limit)), 1)
			}
			rnd := rand.New(rand.NewPCG(1, uint64(tc.burst)))
			clock := newFakeClock()
			ours := NewBucketLimiter[string](tc.limit, tc.burst, WithClock(clock))
			theirs := rate.NewLimiter(tc.limit, tc.burst)
			for i := range 5000 {
				switch p := rnd.IntN(100); {
				case p < 40: // another retry at the same instant
				case p < 95:
					clock.Step(time.Duration(rnd.Int64N(int64(2 * interval))))
				case p < 99:
					clock.Step(time.Duration(rnd.Int64N(int64(interval) * int64(tc.burst+1))))
				default: // idle long enough to refill many times over
					clock.Step(min(interval*time.Duration(tc.burst)*10, time.Hour))
				}
				now := clock.Now()
				want := theirs.ReserveN(now, 1).DelayFrom(now)
				got := ours.When("any")
				if d, slack := got-want, 1+want>>48; d < -slack || d > slack {
					t.Fatalf("call %d at %v: When = %v, rate.Limiter says %v", i+1, now.Sub(testEpoch), got, want)
				}
			}
		})
	}
}

func TestBucketLimiterSubNanosecondTokens(t *testing.T) {
	clock := newFakeClock()
	l := NewBucketLimiter[string](1e12, 1000, WithClock(clock)) // 1000 tokens per nanosecond
	for i := range 1000 {
		if got := l.When("a"); got != 0 {
			t.Fatalf("call %d of the burst: When = %v, want 0", i+1, got)
		}
	}
	if got := l.When("a"); got != 0 {
		t.Fatalf("first past the burst: When = %v, want 0 (1ps, rounded down)", got)
	}
	for range 1_000_000 - 2 {
		l.When("a")
	}
	if got := l.When("a"); got != time.Microsecond {
		t.Fatalf("a million past the burst: When = %v, want exactly 1µs", got)
	}
	clock.Step(2 * time.Microsecond) // pays the debt, then refills 1000 tokens
	for i := range 1000 {
		if got := l.When("a"); got != 0 {
			t.Fatalf("after refilling, call %d: When = %v, want 0", i+1, got)
		}
	}
}

func TestBucketLimiterNeverRefills(t *testing.T) {
	for _, limit := range []rate.Limit{0, -1, rate.Limit(math.NaN())} {
		clock := newFakeClock()
		l := NewBucketLimiter[string](limit, 2, WithClock(clock))
		for i, want := range []time.Duration{0, 0, rate.InfDuration} {
			if got := l.When("a"); got != want {
				t.Fatalf("limit %v, call %d: When = %v, want %v", limit, i+1, got, want)
			}
		}
		clock.Step(1000 * time.Hour)
		if got := l.When("a"); got != rate.InfDuration {
			t.Fatalf("limit %v, after 1000h: When = %v, want rate.InfDuration", limit, got)
		}
	}
}

// A slow rate with a large burst would take more than 292 years to
// refill; the bucket keeps what fits instead of overflowing.
func TestBucketLimiterSlowRatesSaturate(t *testing.T) {
	clock := newFakeClock()
	once := NewBucketLimiter[string](1e-12, 1, WithClock(clock)) // a token per 31,700 years
	if got := once.When("a"); got != 0 {
		t.Fatalf("When = %v, want 0 from the full bucket", got)
	}
	if got := once.When("a"); got != rate.InfDuration {
		t.Fatalf("When = %v, want rate.InfDuration", got)
	}

	const perToken = 1e15 // nanoseconds: 1e-6 tokens per second
	wide := NewBucketLimiter[string](1e-6, 10_000, WithClock(clock))
	held := int(math.MaxInt64 / int64(perToken)) // 9223: 292 years' worth
	for i := range held {
		if got := wide.When("a"); got != 0 {
			t.Fatalf("call %d: When = %v, want 0", i+1, got)
		}
	}
	if got := wide.When("a"); got <= 0 || got > perToken {
		t.Fatalf("past 292 years of tokens: When = %v, want a wait of less than one token", got)
	}
}

// Concurrent takers at one instant get each token once: burst of them go
// at once, and the rest wait one refill interval more each.
func TestBucketLimiterConcurrentTakers(t *testing.T) {
	const takers, each, burst = 8, 100, 10
	l := NewBucketLimiter[string](1, burst, WithClock(newFakeClock()))
	delays := make([][]time.Duration, takers)
	var wg sync.WaitGroup
	for g := range takers {
		wg.Go(func() {
			for range each {
				delays[g] = append(delays[g], l.When("a"))
			}
		})
	}
	wg.Wait()
	all := slices.Concat(delays...)
	slices.Sort(all)
	for i, got := range all {
		want := time.Duration(max(i-burst+1, 0)) * time.Second
		if got != want {
			t.Fatalf("delay %d of %d in order: %v, want %v", i+1, len(all), got, want)
		}
	}
}

func TestSharedBucketLimiter(t *testing.T) {
	clock := newFakeClock()
	lim := rate.NewLimiter(1, 2)
	l := NewSharedBucketLimiter[string](lim, WithClock(clock))
	if got := l.When("a"); got != 0 {
		t.Fatalf("When = %v, want 0", got)
	}
	if !lim.AllowN(clock.Now(), 1) { // other code takes the second token
		t.Fatal("the shared limiter should still have had a token")
	}
	if got := l.When("a"); got != time.Second {
		t.Fatalf("When = %v, want 1s: the other user took the last token", got)
	}
	lim.SetLimitAt(clock.Now(), 4) // reconfigured while in use
	clock.Step(time.Second)        // the 1s debt is paid by 250ms; 3 tokens more, 2 kept
	for i, want := range []time.Duration{0, 0, 250 * time.Millisecond} {
		if got := l.When("a"); got != want {
			t.Fatalf("after SetLimit, call %d: When = %v, want %v", i+1, got, want)
		}
	}
}

func TestSharedBucketLimiterNil(t *testing.T) {
	var log logLines
	l := NewSharedBucketLimiter[string](nil, WithClock(newFakeClock()), WithLogger(log.logger()))
	if log.find("nil *rate.Limiter", "10 tokens per second") == "" {
		t.Fatalf("nil limiter not reported; logged %q", log.lines)
	}
	for i := range 100 {
		if got := l.When("a"); got != 0 {
			t.Fatalf("call %d: When = %v, want 0 while the default burst lasts", i+1, got)
		}
	}
	if got := l.When("a"); got != 100*time.Millisecond {
		t.Fatalf("past the burst: When = %v, want 100ms", got)
	}
}

// A BucketLimiter that was never constructed does not panic; it limits
// nothing.
func TestBucketLimiterZeroValue(t *testing.T) {
	var l BucketLimiter[string]
	for range 3 {
		if got := l.When("a"); got != 0 {
			t.Fatalf("When = %v, want 0", got)
		}
	}
}

func TestNanosArithmetic(t *testing.T) {
	half := nanos{1, 1 << 63} // 1.5ns
	for _, tc := range []struct {
		name      string
		got, want nanos
	}{
		{"plus carries the fraction", half.plus(half), nanos{3, 0}},
		{"plus saturates", nanos{math.MaxInt64 - 1, 1 << 63}.plus(half), maxNanos},
		{"minus borrows", nanos{3, 0}.minus(half), half},
		{"minus of maxNanos from zero", nanos{}.minus(maxNanos), nanos{math.MinInt64, 1}},
		{"times carries the fraction", half.times(3), nanos{4, 1 << 63}},
		{"times saturates", half.times(math.MaxInt64), maxNanos},
		{"later", half.later(nanos{1, 1<<63 + 1}), nanos{1, 1<<63 + 1}},
		{"per token, 1/s", nanosPerToken(1), nanos{1e9, 0}},
		{"per token, 4e9/s", nanosPerToken(4e9), nanos{0, 1 << 62}},
		{"per token, too slow", nanosPerToken(1e-10), maxNanos},
		{"per token, rate.Inf", nanosPerToken(rate.Inf), nanos{}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}
