package main

import (
	"slices"
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 100 ms … 1 ms, unsorted
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(ds, 0.5, 0.99, 1)
	want := []time.Duration{50 * time.Millisecond, 99 * time.Millisecond, 100 * time.Millisecond}
	if !slices.Equal(got, want) {
		t.Errorf("percentiles = %v, want %v", got, want)
	}
	if got := percentiles([]time.Duration{7}, 0.01, 0.5, 1); !slices.Equal(got, []time.Duration{7, 7, 7}) {
		t.Errorf("percentiles of one = %v", got)
	}
	if got := percentiles(nil, 0.5); !slices.Equal(got, []time.Duration{0}) {
		t.Errorf("percentiles of none = %v", got)
	}
}
