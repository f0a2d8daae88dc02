package bench

import (
	"testing"
	"time"

	"golang.org/x/time/rate"
	cgworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/steadyctl/steady/workqueue"
)

// bucketLimiter is what both implementations' token buckets offer.
type bucketLimiter interface {
	When(item string) time.Duration
}

// BenchmarkBucketLimiter measures one When of the overall token bucket,
// in one goroutine, with the rate-limited row's bucket, which never runs
// dry: steady's own bucket against client-go's TypedBucketRateLimiter over
// a rate.Limiter.
func BenchmarkBucketLimiter(b *testing.B) {
	benchBucket(b, map[string]func() bucketLimiter{
		"steady": func() bucketLimiter {
			return workqueue.NewBucketLimiter[string](benchBucketRate, benchBucketBurst)
		},
		"client-go": newClientGoBucket,
	})
}

// BenchmarkSharedBucketLimiter is BenchmarkBucketLimiter with steady
// drawing from a caller's rate.Limiter (NewSharedBucketLimiter), as
// client-go always does.
func BenchmarkSharedBucketLimiter(b *testing.B) {
	benchBucket(b, map[string]func() bucketLimiter{
		"steady": func() bucketLimiter {
			return workqueue.NewSharedBucketLimiter[string](rate.NewLimiter(benchBucketRate, benchBucketBurst))
		},
		"client-go": newClientGoBucket,
	})
}

func newClientGoBucket() bucketLimiter {
	return &cgworkqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(benchBucketRate, benchBucketBurst)}
}

func benchBucket(b *testing.B, impls map[string]func() bucketLimiter) {
	for _, name := range []string{"steady", "client-go"} {
		b.Run("impl="+name, func(b *testing.B) {
			l := impls[name]()
			b.ReportAllocs()
			for b.Loop() {
				if l.When("namespace-1/object-1") != 0 {
					b.Fatal("the benchmark's bucket ran dry")
				}
			}
		})
	}
}
