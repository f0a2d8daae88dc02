package workqueue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	cgworkqueue "k8s.io/client-go/util/workqueue"

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

// cgDepth is a client-go MetricsProvider that keeps the value of the
// queue's depth gauge, which client-go moves with Inc and Dec.
type cgDepth struct {
	value int
	adds  int
}

type cgGauge struct{ d *cgDepth }

func (g cgGauge) Inc() { g.d.value++ }
func (g cgGauge) Dec() { g.d.value-- }

type cgAdds struct{ d *cgDepth }

func (c cgAdds) Inc() { c.d.adds++ }

type cgNoop struct{}

func (cgNoop) Inc()            {}
func (cgNoop) Set(float64)     {}
func (cgNoop) Observe(float64) {}

func (d *cgDepth) NewDepthMetric(string) cgworkqueue.GaugeMetric     { return cgGauge{d} }
func (d *cgDepth) NewAddsMetric(string) cgworkqueue.CounterMetric    { return cgAdds{d} }
func (*cgDepth) NewLatencyMetric(string) cgworkqueue.HistogramMetric { return cgNoop{} }
func (*cgDepth) NewWorkDurationMetric(string) cgworkqueue.HistogramMetric {
	return cgNoop{}
}
func (*cgDepth) NewUnfinishedWorkSecondsMetric(string) cgworkqueue.SettableGaugeMetric {
	return cgNoop{}
}
func (*cgDepth) NewLongestRunningProcessorSecondsMetric(string) cgworkqueue.SettableGaugeMetric {
	return cgNoop{}
}
func (*cgDepth) NewRetriesMetric(string) cgworkqueue.CounterMetric { return cgNoop{} }

// workqueue_depth and workqueue_adds_total must read as client-go's do
// after every call of a random sequence of Adds, Gets and Dones, items
// added while being processed included, before and after shutdown.
func TestDepthMatchesClientGo(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		ours := newFakeMetrics()
		q := New[int](WithName("q"), WithMetricsProvider(ours), WithClock(newFakeClock()))
		theirs := &cgDepth{}
		cg := cgworkqueue.NewTypedWithConfig(cgworkqueue.TypedQueueConfig[int]{
			Name: "q", MetricsProvider: theirs, Clock: newFakeClock(),
		})
		var processing []int
		for op := range 400 {
			var what string
			switch p := r.IntN(100); {
			case p < 45:
				item := r.IntN(8)
				what = fmt.Sprint("Add(", item, ")")
				q.Add(item)
				cg.Add(item)
			case p < 70 && cg.Len() > 0:
				item, _ := cg.Get()
				what = fmt.Sprint("Get() = ", item)
				if got := mustGet(t, q); got != item {
					t.Fatalf("seed %d op %d: Get = %d, client-go's %d", seed, op, got, item)
				}
				processing = append(processing, item)
			case p < 97 && len(processing) > 0:
				i := r.IntN(len(processing))
				item := processing[i]
				processing = slices.Delete(processing, i, i+1)
				what = fmt.Sprint("Done(", item, ")")
				q.Done(item)
				cg.Done(item)
			case p >= 97 && op > 200:
				what = "ShutDown()"
				q.ShutDown()
				cg.ShutDown()
			default:
				continue
			}
			depth, _ := ours.last("depth")
			_, adds := ours.last("adds")
			if int(depth) != theirs.value || adds != theirs.adds || q.Len() != cg.Len() {
				t.Fatalf("seed %d op %d, after %s: depth %v, adds %d, Len %d; client-go's %d, %d, %d",
					seed, op, what, depth, adds, q.Len(), theirs.value, theirs.adds, cg.Len())
			}
		}
		q.ShutDown()
		cg.ShutDown()
	}
}
