package workqueue

import (
	"sync"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

// fakeMetrics records every metric a queue reports.
type fakeMetrics struct {
	mu      sync.Mutex
	created []string
	values  map[string][]float64 // each Inc, Set or Observe, in order
}

func newFakeMetrics() *fakeMetrics { return &fakeMetrics{values: map[string][]float64{}} }

type fakeMetric struct {
	p    *fakeMetrics
	name string
}

func (m fakeMetric) record(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.values[m.name] = append(m.p.values[m.name], v)
}

func (m fakeMetric) Inc()              { m.record(1) }
func (m fakeMetric) Set(v float64)     { m.record(v) }
func (m fakeMetric) Observe(v float64) { m.record(v) }

func (p *fakeMetrics) metric(name, queue string) fakeMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.created = append(p.created, name+"/"+queue)
	return fakeMetric{p, name}
}

func (p *fakeMetrics) NewDepthMetric(q string) Gauge       { return p.metric("depth", q) }
func (p *fakeMetrics) NewAddsMetric(q string) Counter      { return p.metric("adds", q) }
func (p *fakeMetrics) NewLatencyMetric(q string) Histogram { return p.metric("latency", q) }
func (p *fakeMetrics) NewWorkDurationMetric(q string) Histogram {
	return p.metric("work", q)
}
func (p *fakeMetrics) NewUnfinishedWorkSecondsMetric(q string) Gauge {
	return p.metric("unfinished", q)
}
func (p *fakeMetrics) NewLongestRunningProcessorSecondsMetric(q string) Gauge {
	return p.metric("longest", q)
}
func (p *fakeMetrics) NewRetriesMetric(q string) Counter { return p.metric("retries", q) }

// last returns the latest value recorded for name and how many there were.
func (p *fakeMetrics) last(name string) (float64, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.values[name]
	if len(v) == 0 {
		return 0, 0
	}
	return v[len(v)-1], len(v)
}

func (p *fakeMetrics) expect(t *testing.T, name string, value float64, count int) {
	t.Helper()
	if v, n := p.last(name); v != value || n != count {
		t.Errorf("%s: last %v of %d records, want %v of %d", name, v, n, value, count)
	}
}

func TestMetrics(t *testing.T) {
	clock := newFakeClock()
	p := newFakeMetrics()
	q := NewRateLimiting(NewExponentialLimiter[string](time.Second, time.Minute),
		WithName("pods"), WithClock(clock), WithMetricsProvider(p))
	defer q.ShutDown()
	if len(p.created) != 7 || p.created[0] != "depth/pods" {
		t.Fatalf("created %v, want the seven metrics labelled pods", p.created)
	}

	q.Add("a")
	q.Add("a") // merged: not an add
	q.Add("b")
	p.expect(t, "adds", 1, 2)
	p.expect(t, "depth", 2, 2)

	// Step a tick of the unfinished-work goroutine at a time, waiting for
	// its report: the fake ticker drops ticks nobody has received yet.
	tick := func(n int) {
		for range n {
			_, before := p.last("unfinished")
			clock.Step(unfinishedWorkPeriod)
			testkit.Eventually(t, 10*time.Second, "an unfinished-work report", func() bool {
				_, after := p.last("unfinished")
				return after > before
			})
		}
	}
	tick(4) // 2s
	p.expect(t, "unfinished", 0, 4)
	a := mustGet(t, &q.Queue)
	p.expect(t, "latency", 2, 1)
	p.expect(t, "depth", 1, 3)

	tick(6) // 3s
	p.expect(t, "unfinished", 3, 10)
	p.expect(t, "longest", 3, 10)

	q.AddRateLimited(a)
	q.Done(a)
	p.expect(t, "work", 3, 1)
	p.expect(t, "retries", 1, 1)
}

// With metrics, items are not moved into the lock-free ring, whose takes
// would be timed only when a lock holder records them: every Get records
// its item's queue duration before it returns.
func TestMetricsTimeEveryGet(t *testing.T) {
	clock := newFakeClock()
	p := newFakeMetrics()
	q := New[string](WithName("pods"), WithClock(clock), WithMetricsProvider(p))
	defer q.ShutDown()
	items := addABAndFillers(q)
	clock.Step(time.Second)
	for i, want := range items[:2] {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q", got, want)
		}
		p.expect(t, "latency", 1, i+1)
	}
}
