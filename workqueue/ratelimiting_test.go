package workqueue

import (
	"testing"
	"time"
)

func TestRateLimitingQueueRetriesWithBackoff(t *testing.T) {
	clock := newFakeClock()
	q := NewRateLimiting(NewExponentialLimiter[string](time.Second, time.Minute), WithClock(clock))
	defer q.ShutDown()
	step := func(d time.Duration) { clock.Step(d); q.promote() }

	q.Add("a")
	a := mustGet(t, &q.Queue)
	q.AddRateLimited(a) // the first failure: back in 1s
	q.Done(a)
	if got := q.NumRequeues("a"); got != 1 {
		t.Fatalf("NumRequeues = %d, want 1", got)
	}
	step(999 * time.Millisecond)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d before the backoff, want 0", got)
	}
	step(time.Millisecond)
	a = mustGet(t, &q.Queue)
	q.AddRateLimited(a) // the second failure: 2s
	q.Done(a)
	step(time.Second)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d 1s into a 2s backoff, want 0", got)
	}
	step(time.Second)
	a = mustGet(t, &q.Queue)
	q.Forget(a) // success
	q.Done(a)
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
	q.AddRateLimited("a")
	step(time.Second)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1: after Forget the backoff starts at 1s again", got)
	}
}

func TestRateLimitingQueueNilLimiter(t *testing.T) {
	var logs logLines
	clock := newFakeClock()
	q := NewRateLimiting[string](nil, WithName("pods"), WithLogger(logs.logger()), WithClock(clock))
	defer q.ShutDown()
	if logs.find(errNilLimiter.Error(), `"queue"="pods"`) == "" {
		t.Fatalf("nil limiter not logged; logs: %v", logs.lines)
	}
	q.AddRateLimited("a")
	clock.Step(5 * time.Millisecond) // the default limiter's first backoff
	q.promote()
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1 after the default 5ms backoff", got)
	}
}
