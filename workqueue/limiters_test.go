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

func TestBackoffEdges(t *testing.T) {
	const maxDuration = time.Duration(math.MaxInt64)
	tests := []struct {
		base, maxDelay time.Duration
		n              int
		want           time.Duration
	}{
		{5 * time.Millisecond, time.Second, 0, 5 * time.Millisecond},
		{5 * time.Millisecond, time.Second, 1, 10 * time.Millisecond},
		{5 * time.Millisecond, time.Second, 7, 640 * time.Millisecond},
		{5 * time.Millisecond, time.Second, 8, time.Second}, // 1.28s capped
		{5 * time.Millisecond, time.Second, 62, time.Second},
		{5 * time.Millisecond, time.Second, 63, time.Second},
		{5 * time.Millisecond, time.Second, 64, time.Second},
		{5 * time.Millisecond, time.Second, 1000, time.Second},
		{5 * time.Millisecond, time.Second, math.MaxInt, time.Second},
		{1, maxDuration, 62, 1 << 62},
		{1, maxDuration, 63, maxDuration}, // 1<<63 would overflow
		{3, maxDuration, 61, 3 << 61},
		{3, maxDuration, 62, maxDuration},              // 3<<62 would overflow
		{2 * time.Second, time.Second, 0, time.Second}, // cap below base
		{0, time.Second, 10, 0},
	}
	for _, tt := range tests {
		if got := backoff(tt.base, tt.maxDelay, tt.n); got != tt.want {
			t.Errorf("backoff(%v, %v, %d) = %v, want %v", tt.base, tt.maxDelay, tt.n, got, tt.want)
		}
	}
}

func TestExponentialLimiter(t *testing.T) {
	l := NewExponentialLimiter[string](time.Millisecond, 8*time.Millisecond)
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues before any failure = %d, want 0", got)
	}
	for i, want := range []time.Duration{1, 2, 4, 8, 8, 8} {
		if got := l.When("a"); got != want*time.Millisecond {
			t.Fatalf("failure %d: When = %v, want %v", i+1, got, want*time.Millisecond)
		}
	}
	if got := l.When("b"); got != time.Millisecond {
		t.Fatalf("b's first When = %v, want 1ms: items back off independently", got)
	}
	if got := l.NumRequeues("a"); got != 6 {
		t.Fatalf("NumRequeues = %d, want 6", got)
	}
	l.Forget("a")
	l.Forget("never-failed")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
	if got := l.When("a"); got != time.Millisecond {
		t.Fatalf("When after Forget = %v, want 1ms", got)
	}
	if got := l.NumRequeues("b"); got != 1 {
		t.Fatalf("Forget(a) changed b: NumRequeues = %d", got)
	}
}

func TestExponentialLimiterSaturatesHugeRetryCounts(t *testing.T) {
	l := NewExponentialLimiter[string](time.Millisecond, time.Minute)
	l.When("a")
	l.failures.mu.Lock()
	*l.failures.count.upsert(hashItem(failureSeed, "a"), "a") = math.MaxInt - 1
	l.failures.mu.Unlock()
	for range 3 {
		if got := l.When("a"); got != time.Minute {
			t.Fatalf("When = %v, want the 1m cap", got)
		}
	}
	if got := l.NumRequeues("a"); got != math.MaxInt {
		t.Fatalf("NumRequeues = %d, want it to stay at MaxInt", got)
	}
}

func TestExponentialLimiterNegativeDurations(t *testing.T) {
	l := NewExponentialLimiter[string](-time.Second, -time.Second)
	if got := l.When("a"); got != 0 {
		t.Fatalf("When = %v, want 0", got)
	}
}

func TestFastSlowLimiter(t *testing.T) {
	l := NewFastSlowLimiter[string](time.Millisecond, time.Minute, 3)
	for i, want := range []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Minute, time.Minute} {
		if got := l.When("a"); got != want {
			t.Fatalf("failure %d: When = %v, want %v", i+1, got, want)
		}
	}
	if got := l.NumRequeues("a"); got != 5 {
		t.Fatalf("NumRequeues = %d, want 5", got)
	}
	l.Forget("a")
	if got := l.When("a"); got != time.Millisecond {
		t.Fatalf("When after Forget = %v, want fast again", got)
	}
	if got := NewFastSlowLimiter[string](time.Millisecond, time.Minute, 0).When("a"); got != time.Minute {
		t.Fatalf("maxFast 0: When = %v, want slow at once", got)
	}
}

func TestMaxOfLimiter(t *testing.T) {
	clock := newFakeClock()
	bucket := NewBucketLimiter[string](1, 1, WithClock(clock))
	l := NewMaxOfLimiter(NewExponentialLimiter[string](time.Millisecond, time.Hour), nil, RateLimiter[string](bucket))
	if got := l.When("a"); got != time.Millisecond {
		t.Fatalf("When = %v, want 1ms (bucket had a token)", got)
	}
	if got := l.When("b"); got != time.Second {
		t.Fatalf("When = %v, want 1s from the empty bucket", got)
	}
	if got := l.NumRequeues("a"); got != 1 {
		t.Fatalf("NumRequeues = %d, want 1", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
}

// The documented choice: the bucket gives up a token even when per-item
// backoff is longer.
func TestMaxOfLimiterTakesATokenWhenBackoffDominates(t *testing.T) {
	clock := newFakeClock()
	bucket := NewBucketLimiter[string](1, 1, WithClock(clock))
	l := NewMaxOfLimiter(NewExponentialLimiter[string](time.Minute, time.Hour), RateLimiter[string](bucket))
	if got := l.When("a"); got != time.Minute {
		t.Fatalf("When = %v, want 1m", got)
	}
	if got := bucket.When("probe"); got != time.Second {
		t.Fatalf("bucket.When = %v, want 1s: the max-of should have taken the only token", got)
	}
}

func TestDefaultControllerRateLimiter(t *testing.T) {
	clock := newFakeClock()
	l := DefaultControllerRateLimiter[int](WithClock(clock))
	for i, want := range []time.Duration{5, 10, 20} {
		if got := l.When(0); got != want*time.Millisecond {
			t.Fatalf("failure %d: When = %v, want %v", i+1, got, want*time.Millisecond)
		}
	}
	// 3 tokens used; the bucket holds 100 and refills at 10/s.
	for item := 1; item <= 97; item++ {
		if got := l.When(item); got != 5*time.Millisecond {
			t.Fatalf("item %d: When = %v, want 5ms while the burst lasts", item, got)
		}
	}
	if got := l.When(1000); got != 100*time.Millisecond {
		t.Fatalf("first item past the burst: When = %v, want 100ms", got)
	}
	var _ RateLimiter[int] = l
	if _, ok := l.(*MaxOfLimiter[int]); !ok {
		t.Fatalf("DefaultControllerRateLimiter is %T", l)
	}
}

func TestPerItemLimiterZeroValues(t *testing.T) {
	var e ExponentialLimiter[string]
	var f FastSlowLimiter[string]
	var m MaxOfLimiter[string]
	for _, l := range []RateLimiter[string]{&e, &f, &m} {
		if got := l.When("a"); got != 0 {
			t.Errorf("%T zero value: When = %v, want 0", l, got)
		}
		l.Forget("a")
		if got := l.NumRequeues("a"); got != 0 {
			t.Errorf("%T zero value: NumRequeues after Forget = %d", l, got)
		}
	}
}

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

// The bucket must say what a reservation from a golang.org/x/time/rate
// Limiter of the same limit and burst says (client-go's bucket), on random
// schedules of bursts, waits and idle spells, although it takes a token
// without a reservation when one is there.
func TestBucketLimiterMatchesRate(t *testing.T) {
	for _, tc := range []struct {
		limit rate.Limit
		burst int
	}{
		{1, 1}, {1, 2}, {10, 100}, {3, 7}, {0.5, 1}, {1e-3, 2},
		{1e9, 5}, {rate.Inf, 1}, {0, 3}, {-1, 2},
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
				if got != want {
					t.Fatalf("call %d at %v: When = %v, rate.Limiter says %v", i+1, now.Sub(testEpoch), got, want)
				}
			}
		})
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
