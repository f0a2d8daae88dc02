package workqueue

import (
	"testing"
	"time"
)

func TestOptionsNilClockIsLoggedAndReplaced(t *testing.T) {
	var logs logLines
	q := NewDelaying[string](WithLogger(logs.logger()), WithClock(nil), nil)
	defer q.ShutDown()
	if logs.find(errNilClock.Error()) == "" {
		t.Fatalf("WithClock(nil) not logged; logs: %v", logs.lines)
	}
	q.AddAfter("a", time.Millisecond) // the real clock must work
	if got := mustGet(t, &q.Queue); got != "a" {
		t.Fatalf("Get = %q", got)
	}
}

func TestOptionsMetricsNeedAName(t *testing.T) {
	var logs logLines
	p := newFakeMetrics()
	q := New[string](WithMetricsProvider(p), WithLogger(logs.logger()))
	defer q.ShutDown()
	if logs.find(errUnnamedMetrics.Error()) == "" {
		t.Fatalf("unnamed metrics not logged; logs: %v", logs.lines)
	}
	q.Add("a")
	if len(p.created) != 0 {
		t.Fatalf("metrics created for an unnamed queue: %v", p.created)
	}
}
