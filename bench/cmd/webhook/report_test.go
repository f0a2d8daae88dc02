package main

import (
	"strings"
	"testing"
	"time"
)

func results() []result {
	r := func(impl string, round int, cpu, p99 float64) result {
		return result{Impl: impl, Round: round, CPUSeconds: cpu, Load: loadStats{Sent: 1000, Rate: 500, P50Millis: 1, P99Millis: p99, MaxMillis: 9}}
	}
	return []result{
		r("steady", 1, 0.10, 2), r("controller-runtime", 1, 0.20, 4),
		r("controller-runtime", 2, 0.25, 3), r("steady", 2, 0.20, 3),
		r("steady", 3, 0.15, 2.5), r("controller-runtime", 3, 0.22, 2),
	}
}

func TestCPUPerRequest(t *testing.T) {
	r := result{CPUSeconds: 0.5, Load: loadStats{Sent: 1010, Errors: 10}}
	if got := r.CPUPerRequest(); got != 500 {
		t.Errorf("CPUPerRequest = %v µs, want 500", got)
	}
	if got := (result{CPUSeconds: 1}).CPUPerRequest(); got != 0 {
		t.Errorf("CPUPerRequest of no requests = %v, want 0", got)
	}
}

func TestMedianAndRoundRatios(t *testing.T) {
	rs := results()
	if got := median(rs, "steady", result.CPUPerRequest); got != 150 {
		t.Errorf("median steady CPU = %v µs, want 150", got)
	}
	if got := roundRatios(rs, func(r result) float64 { return r.Load.P99Millis }); got != "0.50, 1.00, 1.25" {
		t.Errorf("roundRatios = %q", got)
	}
	if got := roundRatios(rs[:3], func(r result) float64 { return r.Load.P99Millis }); got != "" {
		t.Errorf("roundRatios with a side missing = %q, want empty", got)
	}
}

func TestPrintTable(t *testing.T) {
	var b strings.Builder
	printTable(&b, config{rate: 500, duration: 20 * time.Second, warmup: 3 * time.Second, conns: 8, rounds: 3}, results())
	out := b.String()
	for _, want := range []string{
		"| CPU per admission request (µs) | 150 | 220 | 0.68 (0.50, 0.80, 0.68) | ≤ 0.7 met |",
		"| latency p99 (ms) | 2.50 | 3.00 | 0.83 (0.50, 1.00, 1.25) | ≤ 1.0 met |",
		"| errors | 0.00 | 0.00 | – |  |",
		"round 2, controller-runtime:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestErrorCount(t *testing.T) {
	rs := results()
	rs[1].Load.Errors, rs[4].Warmup.Errors = 2, 1
	if got := errorCount(rs); got != 3 {
		t.Errorf("errorCount = %d, want 3", got)
	}
}
