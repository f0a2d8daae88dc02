package main

import (
	"context"
	"sync"
	"time"

	"github.com/steadyctl/steady/bench/internal/admit"
)

// loadStats is what one phase of load achieved.
type loadStats struct {
	Sent      int     `json:"sent"`
	Errors    int     `json:"errors"`
	FirstErr  string  `json:"first_error,omitempty"`
	Seconds   float64 `json:"seconds"` // from the first send to the last answer
	Rate      float64 `json:"rate"`    // answered requests per second
	P50Millis float64 `json:"p50_ms"`
	P99Millis float64 `json:"p99_ms"`
	MaxMillis float64 `json:"max_ms"`
	// LateMillis is how far behind its schedule the latest request was
	// sent: the parent's own lag, which the latencies do not include.
	LateMillis float64 `json:"late_ms"`
}

// generate sends rate requests per second for d, request n at start+n/rate
// whether or not earlier ones have been answered (each in a goroutine of
// its own, as the API server's requests are), numbering them from first,
// and waits for every answer.
func generate(ctx context.Context, c *admit.Client, run uint32, first uint64, rate float64, d time.Duration) loadStats {
	total := int(rate * d.Seconds())
	lat := make([]time.Duration, total)
	errs := make([]error, total)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	var late time.Duration
	for i := range total {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		} else {
			late = max(late, -wait)
		}
		if ctx.Err() != nil {
			total = i
			break
		}
		wg.Go(func() { lat[i], errs[i] = c.Send(ctx, run, first+uint64(i)) })
	}
	wg.Wait()
	s := loadStats{Sent: total, Seconds: time.Since(start).Seconds(), LateMillis: millis(late)}
	ok := make([]time.Duration, 0, total)
	for i, err := range errs[:total] {
		if err != nil {
			if s.Errors++; s.FirstErr == "" {
				s.FirstErr = err.Error()
			}
			continue
		}
		ok = append(ok, lat[i])
	}
	s.Rate = float64(len(ok)) / s.Seconds
	p := percentiles(ok, 0.50, 0.99, 1)
	s.P50Millis, s.P99Millis, s.MaxMillis = millis(p[0]), millis(p[1]), millis(p[2])
	return s
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
