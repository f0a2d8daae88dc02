package main

import (
	"math"
	"slices"
	"time"
)

// percentiles returns the nearest-rank percentiles ps (fractions, 0 < p ≤
// 1) of ds, which it sorts; zeros when ds is empty.
func percentiles(ds []time.Duration, ps ...float64) []time.Duration {
	out := make([]time.Duration, len(ps))
	if len(ds) == 0 {
		return out
	}
	slices.Sort(ds)
	for i, p := range ps {
		rank := int(math.Ceil(p * float64(len(ds))))
		out[i] = ds[min(max(rank, 1), len(ds))-1]
	}
	return out
}
