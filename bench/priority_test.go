package bench

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	cgworkqueue "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/steadyctl/steady/workqueue"
)

// steady's priority queue stands in for client-go's rate-limiting queue,
// as controller-runtime's does.
var (
	_ cgworkqueue.TypedRateLimitingInterface[string] = (*workqueue.PriorityQueue[string])(nil)
	_ cgworkqueue.TypedRateLimitingInterface[string] = priorityqueue.PriorityQueue[string](nil)
)

// priorityWorkqueueUnderTest is a priority queue as the benchmarks drive
// it: the shared methods, and an add with a priority.
type priorityWorkqueueUnderTest interface {
	workqueueUnderTest
	AddPriority(item string, priority int)
	Len() int
}

type steadyPriority struct {
	*workqueue.PriorityQueue[string]
}

func (q steadyPriority) AddPriority(item string, p int) {
	q.AddWithOpts(workqueue.AddOpts{Priority: &p}, item)
}

type crPriority struct {
	priorityqueue.PriorityQueue[string]
}

func (q crPriority) AddPriority(item string, p int) {
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &p}, item)
}

// priorityImpls builds each implementation's priority queue; opts are
// steady's only (controller-runtime's has no aging to configure). Both
// use the per-item exponential limiter controller-runtime's defaults to,
// and record no metrics (controller-runtime's records none for a queue
// without a name).
var priorityImpls = []struct {
	name  string
	queue func(opts ...workqueue.Option) priorityWorkqueueUnderTest
}{
	{"steady", func(opts ...workqueue.Option) priorityWorkqueueUnderTest {
		return steadyPriority{workqueue.NewPriority(
			workqueue.NewExponentialLimiter[string](5*time.Millisecond, benchMaxBackoff), opts...)}
	}},
	{"controller-runtime", func(...workqueue.Option) priorityWorkqueueUnderTest {
		return crPriority{priorityqueue.New("", func(o *priorityqueue.Opts[string]) {
			o.RateLimiter = cgworkqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, benchMaxBackoff)
		})}
	}},
}

// BenchmarkPriorityWorkqueue compares steady's PriorityQueue with
// controller-runtime's priorityqueue in BenchmarkWorkqueue's shapes
// (distinct, hot, sequential; see there), plus:
//   - mixed: distinct keys added alternately at LowPriority and 0, as
//     after a restart while events come in.
//
// controller-runtime's ShutDown does not let workers finish what is
// queued, so its processed/op falls short of 1 where work is left at the
// end.
func BenchmarkPriorityWorkqueue(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		for _, impl := range priorityImpls {
			b.Run(fmt.Sprintf("distinct/workers=%d/impl=%s", workers, impl.name), func(b *testing.B) {
				benchWorkqueueAddGetDone(b, impl.queue(), workqueueKeys, workers, workqueueWindow)
			})
		}
	}
	for _, impl := range priorityImpls {
		b.Run("hot/workers=1/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueAddGetDone(b, impl.queue(), workqueueKeys[:100], 1, 0)
		})
	}
	for _, impl := range priorityImpls {
		b.Run("sequential/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueSequential(b, impl.queue(), workqueueKeys)
		})
	}
	for _, impl := range priorityImpls {
		b.Run("mixed/workers=4/impl="+impl.name, func(b *testing.B) {
			benchWorkqueueAddGetDone(b, mixedPriorities{impl.queue()}, workqueueKeys, 4, workqueueWindow)
		})
	}
}

// mixedPriorities adds every other key at LowPriority.
type mixedPriorities struct{ priorityWorkqueueUnderTest }

func (q mixedPriorities) Add(item string) {
	p := 0
	if len(item)%2 == 0 {
		p = workqueue.LowPriority
	}
	q.AddPriority(item, p)
}

// BenchmarkPriorityStarvation runs controller-runtime #3496's scenario in
// real time, once per op: one worker whose reconciles take 1ms, adding
// two new keys at priority 0 before each Get (twice as fast as it
// drains), and one key queued at LowPriority first. low-wait-ms is how
// long that key waited to be handed out, cut off at 1s; starved/op is
// the fraction of runs in which it was not handed out by then. steady's
// queue runs with WithMaxWait(100ms); its bound here is 100ms plus the
// reconcile in progress.
func BenchmarkPriorityStarvation(b *testing.B) {
	const service, maxWait, limit = time.Millisecond, 100 * time.Millisecond, time.Second
	for _, impl := range priorityImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var waited time.Duration
			starved := 0
			for range b.N {
				q := impl.queue(workqueue.WithMaxWait(maxWait))
				w, ok := starve(q, service, limit)
				q.ShutDown()
				waited += w
				if !ok {
					starved++
				}
			}
			b.ReportMetric(float64(waited.Milliseconds())/float64(b.N), "low-wait-ms")
			b.ReportMetric(float64(starved)/float64(b.N), "starved/op")
		})
	}
}

// starve runs the starvation scenario on q until the low-priority key is
// handed out or limit has passed, and returns how long it waited.
func starve(q priorityWorkqueueUnderTest, service, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	q.AddPriority("initial/0", workqueue.LowPriority)
	for i := 0; time.Since(start) < limit; i++ {
		q.AddPriority(workqueueKeys[(2*i)%len(workqueueKeys)], 0)
		q.AddPriority(workqueueKeys[(2*i+1)%len(workqueueKeys)], 0)
		item, _ := q.Get()
		if item == "initial/0" {
			return time.Since(start), true
		}
		time.Sleep(service)
		q.Done(item)
	}
	return limit, false
}

// BenchmarkPriorityFairness measures how many Gets it takes to hand out a
// namespace's single key queued behind another namespace's 10,000:
// steady with a flow per namespace, controller-runtime (which has no
// flows) first in, first out.
func BenchmarkPriorityFairness(b *testing.B) {
	const backlog = 10_000
	impls := []struct {
		name string
		add  func(q priorityWorkqueueUnderTest, flow, key string)
	}{
		{"steady", func(q priorityWorkqueueUnderTest, flow, key string) {
			q.(steadyPriority).AddWithOpts(workqueue.AddOpts{Flow: flow}, key)
		}},
		{"controller-runtime", func(q priorityWorkqueueUnderTest, _, key string) { q.Add(key) }},
	}
	for i, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			gets := 0
			for range b.N {
				q := priorityImpls[i].queue()
				for _, key := range workqueueKeys[:backlog] {
					impl.add(q, "busy", key)
				}
				impl.add(q, "quiet", "quiet/only")
				for q.Len() < backlog+1 { // controller-runtime adds asynchronously
					runtime.Gosched()
				}
				for {
					gets++
					item, _ := q.Get()
					q.Done(item)
					if item == "quiet/only" {
						break
					}
				}
				q.ShutDown()
			}
			b.ReportMetric(float64(gets)/float64(b.N), "gets-until-quiet")
		})
	}
}
