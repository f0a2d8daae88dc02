package workqueue

import (
	"runtime"
	"testing"
	"time"
	"weak"
)

// TestPriorityDoneLetsGoOfTheItem checks that once Done returns, or a
// shutdown drops a waiting item, a PriorityQueue holds no reference to
// the item, along each path it can travel: its record is cleared when it
// is freed, and a delay slot holds no item.
func TestPriorityDoneLetsGoOfTheItem(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, q *PriorityQueue[*object], step func(time.Duration), item *object)
	}{
		{"add, get, done", func(t *testing.T, q *PriorityQueue[*object], _ func(time.Duration), item *object) {
			q.AddWithOpts(AddOpts{Priority: prio(LowPriority), Flow: "ns", Reasons: 1}, item)
			q.Done(mustGet(t, q))
		}},
		{"added while processing", func(t *testing.T, q *PriorityQueue[*object], _ func(time.Duration), item *object) {
			q.Add(item)
			got := mustGet(t, q)
			q.AddWithOpts(AddOpts{Priority: prio(3)}, item)
			q.Done(got)
			q.Done(mustGet(t, q))
		}},
		{"delay cancelled by an add", func(t *testing.T, q *PriorityQueue[*object], _ func(time.Duration), item *object) {
			q.AddAfter(item, time.Hour)
			q.Add(item)
			q.Done(mustGet(t, q))
		}},
		{"rate limited while processing", func(t *testing.T, q *PriorityQueue[*object], step func(time.Duration), item *object) {
			q.Add(item)
			got := mustGet(t, q)
			q.AddRateLimited(got)
			q.Done(got)
			step(time.Second)
			got = mustGet(t, q)
			q.Forget(got)
			q.Done(got)
		}},
		{"waiting at shutdown", func(t *testing.T, q *PriorityQueue[*object], _ func(time.Duration), item *object) {
			q.AddAfter(item, time.Hour)
			q.ShutDown()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			q := NewPriority(NewExponentialLimiter[*object](time.Second, time.Minute),
				WithClock(clock), WithName("objects"), WithMetricsProvider(newFakePriorityMetrics()))
			defer q.ShutDown()
			step := func(d time.Duration) {
				clock.Step(d)
				q.promote()
			}
			ref := func() weak.Pointer[object] {
				item := &object{name: "finished"}
				tc.run(t, q, step, item)
				return weak.Make(item)
			}()
			runtime.GC()
			if ref.Value() != nil {
				t.Fatal("the queue still holds the finished item")
			}
			runtime.KeepAlive(q)
		})
	}
}
