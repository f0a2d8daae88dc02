package bench

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	cgworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/workqueue"
)

// BenchmarkWorkqueueHandoff measures a controller's queue at a low event
// rate, where every item finds the workers asleep: a producer adds one
// key, a worker wakes, Gets, Forgets and Dones it, and only then does the
// producer add the next. The queues are configured as controllers run
// them: the default controller rate limiter, Prometheus metrics recorded,
// four workers. cpu-ns/op is the process's CPU time (user + system, every
// thread) per item, the cost a user sees in the pod's CPU usage; ns/op is
// mostly the time the scheduler takes to wake a worker. With a gap
// between items (an event rate of a few thousand per second) the workers'
// threads go to sleep in the kernel between items, as they do in a
// controller at a hundred events per second; without one they often find
// the next item while the runtime still spins.
func BenchmarkWorkqueueHandoff(b *testing.B) {
	impls := []struct {
		name  string
		queue func() rateLimitingWorkqueueUnderTest
	}{
		{"steady", func() rateLimitingWorkqueueUnderTest {
			m, err := metrics.NewWorkqueue(prometheus.NewRegistry())
			if err != nil {
				b.Fatal(err)
			}
			return workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string](),
				workqueue.WithName("handoff"), workqueue.WithMetricsProvider(m))
		}},
		{"client-go", func() rateLimitingWorkqueueUnderTest {
			return cgworkqueue.NewTypedRateLimitingQueueWithConfig(cgworkqueue.DefaultTypedControllerRateLimiter[string](),
				cgworkqueue.TypedRateLimitingQueueConfig[string]{Name: "handoff", MetricsProvider: cgPrometheusProvider{}})
		}},
	}
	for _, gap := range []time.Duration{0, 200 * time.Microsecond} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("gap=%v/workers=4/impl=%s", gap, impl.name), func(b *testing.B) {
				benchWorkqueueHandoff(b, impl.queue(), workqueueKeys, 4, gap)
			})
		}
	}
}

func benchWorkqueueHandoff(b *testing.B, q rateLimitingWorkqueueUnderTest, keys []string, workers int, gap time.Duration) {
	b.ReportAllocs()
	finished := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Forget(item) // a successful reconcile
				q.Done(item)
				finished <- struct{}{}
			}
		})
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := range b.N {
		if gap > 0 {
			time.Sleep(gap) // the event rate, not a synchronisation
		}
		q.Add(keys[i%len(keys)])
		<-finished
	}
	cpu = processCPU() - cpu
	b.StopTimer()
	q.ShutDown()
	wg.Wait()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used so far, all threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cgPrometheusProvider gives client-go's queue the same Prometheus
// instruments steady's metrics package gives steady's, unregistered, so
// both pay the same cost per observation.
type cgPrometheusProvider struct{}

func gauge() prometheus.Gauge { return prometheus.NewGauge(prometheus.GaugeOpts{Name: "g"}) }
func counter() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: "c"})
}
func histogram() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h", Buckets: prometheus.ExponentialBuckets(10e-9, 10, 10)})
}

func (cgPrometheusProvider) NewDepthMetric(string) cgworkqueue.GaugeMetric       { return gauge() }
func (cgPrometheusProvider) NewAddsMetric(string) cgworkqueue.CounterMetric      { return counter() }
func (cgPrometheusProvider) NewLatencyMetric(string) cgworkqueue.HistogramMetric { return histogram() }
func (cgPrometheusProvider) NewWorkDurationMetric(string) cgworkqueue.HistogramMetric {
	return histogram()
}
func (cgPrometheusProvider) NewUnfinishedWorkSecondsMetric(string) cgworkqueue.SettableGaugeMetric {
	return gauge()
}
func (cgPrometheusProvider) NewLongestRunningProcessorSecondsMetric(string) cgworkqueue.SettableGaugeMetric {
	return gauge()
}
func (cgPrometheusProvider) NewRetriesMetric(string) cgworkqueue.CounterMetric { return counter() }
