package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// loadStats is what a load run achieved.
type loadStats struct {
	Sent    int     `json:"sent"`    // updates the API server accepted
	Failed  int     `json:"failed"`  // updates that failed
	Seconds float64 `json:"seconds"` // from the start to the last answer
	Rate    float64 `json:"rate"`    // Sent / Seconds
	// The round trip of the update requests, in milliseconds: the part of
	// the measured latency before the controller can know of an update.
	RoundTripP50 float64 `json:"round_trip_p50_ms"`
	RoundTripP99 float64 `json:"round_trip_p99_ms"`
}

// generateLoad makes rate × d updates to the seeded objects, round-robin,
// paced at rate per second, from writers goroutines. Each update is a merge
// patch that sets data[ValueKey] (a Widget's spec.data[ValueKey]) to a new
// value (prefixed with tag) and the written annotation to the wall-clock
// time just before sending.
//
// A ticker releases the updates that have come due into a queue the writers
// take from. Every update is sent, so every run does the same work; when
// the machine cannot keep the pace, the queue fills, the schedule slips and
// the achieved rate (Sent / Seconds) says what it could sustain.
func (c *cluster) generateLoad(ctx context.Context, rate float64, d time.Duration, writers int, tag string) (loadStats, error) {
	planned := int(rate * d.Seconds())
	jobs := make(chan int, max(1, int(rate/10)))
	var sent, failed atomic.Int64
	var (
		errOnce  sync.Once
		firstErr error
	)
	var last atomic.Int64 // UnixNano of the last answer
	var rttMu sync.Mutex
	var rtts []time.Duration

	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			var mine []time.Duration
			defer func() {
				rttMu.Lock()
				rtts = append(rtts, mine...)
				rttMu.Unlock()
			}()
			for i := range jobs {
				now := time.Now()
				patch := c.kind.LoadPatch(now.UnixNano(), tag+"-"+strconv.Itoa(i))
				err := c.objects.Patch(types.MergePatchType).Namespace(c.namespace).Resource(c.kind.Resource()).
					Name(c.names[i%len(c.names)]).Body(patch).Do(ctx).Error()
				if err != nil {
					failed.Add(1)
					errOnce.Do(func() { firstErr = err })
				} else {
					sent.Add(1)
				}
				done := time.Now()
				mine = append(mine, done.Sub(now))
				last.Store(done.UnixNano())
			}
		})
	}

	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	released := 0
	for released < planned && ctx.Err() == nil {
		<-tick.C
		due := min(planned, int(time.Since(start).Seconds()*rate))
		for ; released < due && ctx.Err() == nil; released++ {
			select {
			case jobs <- released:
			case <-ctx.Done():
			}
		}
	}
	tick.Stop()
	close(jobs)
	wg.Wait()

	s := loadStats{Sent: int(sent.Load()), Failed: int(failed.Load())}
	slices.Sort(rtts)
	s.RoundTripP50 = float64(e2e.Percentile(rtts, 50)) / float64(time.Millisecond)
	s.RoundTripP99 = float64(e2e.Percentile(rtts, 99)) / float64(time.Millisecond)
	if l := last.Load(); l > 0 {
		s.Seconds = time.Unix(0, l).Sub(start).Seconds()
		s.Rate = float64(s.Sent) / s.Seconds
	}
	if err := ctx.Err(); err != nil {
		return s, err
	}
	if firstErr != nil && s.Failed > planned/100 {
		return s, fmt.Errorf("%d of %d updates failed, the first with: %w", s.Failed, planned, firstErr)
	}
	return s, nil
}
