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
// dry: steady's BucketLimiter against client-go's TypedBucketRateLimiter,
// both over a rate.Limiter.
func BenchmarkBucketLimiter(b *testing.B) {
	benchBucket(b, func() bucketLimiter {
		return workqueue.NewBucketLimiter[string](benchBucketRate, benchBucketBurst)
	})
}

// BenchmarkSharedBucketLimiter is BenchmarkBucketLimiter with steady
// drawing from a rate.Limiter the caller built (NewSharedBucketLimiter),
// as client-go always does.
func BenchmarkSharedBucketLimiter(b *testing.B) {
	benchBucket(b, func() bucketLimiter {
		return workqueue.NewSharedBucketLimiter[string](rate.NewLimiter(benchBucketRate, benchBucketBurst))
	})
}

// benchBucket runs the bucket steady builds against client-go's.
func benchBucket(b *testing.B, steady func() bucketLimiter) {
	impls := []struct {
		name string
		new  func() bucketLimiter
	}{
		{"steady", steady},
		{"client-go", func() bucketLimiter {
			return &cgworkqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(benchBucketRate, benchBucketBurst)}
		}},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			l := impl.new()
			b.ReportAllocs()
			for b.Loop() {
				if l.When("namespace-1/object-1") != 0 {
					b.Fatal("the benchmark's bucket ran dry")
				}
			}
		})
	}
}
