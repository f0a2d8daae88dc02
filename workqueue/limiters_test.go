package workqueue

import (
	"math"
	"testing"
	"time"
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
