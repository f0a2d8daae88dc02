package workqueue

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"weak"
)

// object stands in for what a queue of pointers holds. It holds a
// pointer (the string's), so that it is not packed with other small
// objects into one allocation, which would keep it alive with them.
type object struct {
	name string
}

// TestDoneLetsGoOfTheItem checks that once Done returns, the queue holds
// no reference to a finished item, with no later call to the queue: the
// item's weak pointer is cleared by the next collection. Each case takes
// the item along one of the paths it can travel through the queue. The
// cases that need no delay use a plain Queue, which has no goroutine that
// could tidy up after Done.
func TestDoneLetsGoOfTheItem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics bool
		plain   func(t *testing.T, q *Queue[*object], item *object)
		limited func(t *testing.T, q *RateLimitingQueue[*object], step func(time.Duration), item *object)
	}{
		{"add, get, done", false, func(t *testing.T, q *Queue[*object], item *object) {
			q.Add(item)
			q.Done(mustGet(t, q))
		}, nil},
		{"add merged in the inbox", false, func(t *testing.T, q *Queue[*object], item *object) {
			q.Add(item)
			q.Add(item)
			q.Done(mustGet(t, q))
		}, nil},
		{"taken from the ring among others", false, func(t *testing.T, q *Queue[*object], item *object) {
			others := make([]*object, ringSize)
			for i := range others {
				others[i] = &object{name: fmt.Sprint("other-", i)}
				q.Add(others[i])
			}
			q.Add(item)
			for range len(others) + 1 {
				q.Done(mustGet(t, q)) // item last, from the ring
			}
		}, nil},
		{"added while processing", false, func(t *testing.T, q *Queue[*object], item *object) {
			q.Add(item)
			got := mustGet(t, q)
			q.Add(item)
			q.Done(got) // queued again
			q.Done(mustGet(t, q))
		}, nil},
		{"delay cancelled by an add", false, nil, func(t *testing.T, q *RateLimitingQueue[*object], _ func(time.Duration), item *object) {
			q.AddAfter(item, time.Hour)
			q.Add(item)
			q.Done(mustGet(t, &q.Queue))
		}},
		{"delay replaced by an earlier one", false, nil, func(t *testing.T, q *RateLimitingQueue[*object], step func(time.Duration), item *object) {
			q.AddAfter(item, time.Hour)
			q.AddAfter(item, time.Second)
			step(time.Second)
			q.Done(mustGet(t, &q.Queue))
		}},
		{"rate limited, then forgotten", false, nil, func(t *testing.T, q *RateLimitingQueue[*object], step func(time.Duration), item *object) {
			q.AddRateLimited(item)
			step(time.Second)
			got := mustGet(t, &q.Queue)
			q.Forget(got)
			q.Done(got)
		}},
		{"with metrics", true, func(t *testing.T, q *Queue[*object], item *object) {
			q.Add(item)
			q.Done(mustGet(t, q))
		}, nil},
		{"waiting at shutdown", false, nil, func(t *testing.T, q *RateLimitingQueue[*object], _ func(time.Duration), item *object) {
			q.AddAfter(item, time.Hour)
			q.ShutDown()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			opts := []Option{WithClock(clock)}
			if tc.metrics {
				opts = append(opts, WithName("objects"), WithMetricsProvider(newFakeMetrics()))
			}
			var run func(*object)
			if tc.plain != nil {
				q := New[*object](opts...)
				defer q.ShutDown()
				run = func(item *object) { tc.plain(t, q, item) }
			} else {
				q := NewRateLimiting(NewExponentialLimiter[*object](time.Second, time.Minute), opts...)
				defer q.ShutDown()
				step := func(d time.Duration) {
					clock.Step(d)
					q.promote()
				}
				run = func(item *object) { tc.limited(t, q, step, item) }
			}
			ref := func() weak.Pointer[object] {
				item := &object{name: "finished"}
				run(item)
				return weak.Make(item)
			}()
			runtime.GC()
			if ref.Value() != nil {
				t.Fatal("the queue still holds the finished item")
			}
			runtime.KeepAlive(run) // and with it the queue
		})
	}
}
