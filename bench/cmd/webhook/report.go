package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// row is one line of the table: a measurement taken from each result.
type row struct {
	name   string
	value  func(result) float64
	target float64 // the steady / controller-runtime ratio to stay at or under; 0: none
}

// rows are the table's lines; the targets are issue 40's.
var rows = []row{
	{"CPU per admission request (µs)", result.CPUPerRequest, 0.7},
	{"latency p50 (ms)", func(r result) float64 { return r.Load.P50Millis }, 0},
	{"latency p99 (ms)", func(r result) float64 { return r.Load.P99Millis }, 1.0},
	{"latency max (ms)", func(r result) float64 { return r.Load.MaxMillis }, 0},
	{"child CPU in the window (s)", func(r result) float64 { return r.CPUSeconds }, 0},
	{"requests answered per second", func(r result) float64 { return r.Load.Rate }, 0},
	{"RSS after the window (MiB)", func(r result) float64 { return mibf(r.RSS) }, 0},
	{"connections opened", func(r result) float64 { return float64(r.Conns) }, 0},
	{"errors", func(r result) float64 { return float64(r.Load.Errors + r.Warmup.Errors) }, 0},
}

// printTable writes the medians over rounds as a Markdown table, each
// ratio followed by the rounds' own, then a line per round.
func printTable(w io.Writer, c config, results []result) {
	fmt.Fprintf(w, "\nvalidating webhook of Deployments, %.0f requests/s for %v (after %v warm-up), at most %d connections, %d round(s); medians, ratio = steady / controller-runtime\n\n",
		c.rate, c.duration, c.warmup, c.conns, c.rounds)
	fmt.Fprintln(w, "| metric | steady | controller-runtime | ratio | target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, rw := range rows {
		s, cr := median(results, impls[0], rw.value), median(results, impls[1], rw.value)
		ratio, target := "–", ""
		if cr != 0 {
			ratio = fmt.Sprintf("%.2f", s/cr)
			if per := roundRatios(results, rw.value); len(per) > 1 {
				ratio += " (" + per + ")"
			}
		}
		if rw.target > 0 {
			verdict := "missed"
			if cr != 0 && s/cr <= rw.target {
				verdict = "met"
			}
			target = fmt.Sprintf("≤ %.1f %s", rw.target, verdict)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", rw.name, num(s), num(cr), ratio, target)
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "round %d, %s: load average %s → %s; %d requests, %d errors, CPU %.3f s, p50 %.2f ms, p99 %.2f ms, max %.1f ms, sent up to %.1f ms late\n",
			r.Round, r.Impl, r.LoadAvg[0], r.LoadAvg[1], r.Load.Sent, r.Load.Errors, r.CPUSeconds,
			r.Load.P50Millis, r.Load.P99Millis, r.Load.MaxMillis, r.Load.LateMillis)
	}
}

// roundRatios returns each round's steady / controller-runtime ratio of
// value, comma-separated ("" if a round lacks a side).
func roundRatios(results []result, value func(result) float64) string {
	var s string
	for round := 1; ; round++ {
		var st, cr *result
		for i := range results {
			if results[i].Round != round {
				continue
			}
			if results[i].Impl == impls[0] {
				st = &results[i]
			} else {
				cr = &results[i]
			}
		}
		if st == nil && cr == nil {
			return s
		}
		if st == nil || cr == nil || value(*cr) == 0 {
			return ""
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%.2f", value(*st)/value(*cr))
	}
}

// errorCount is the number of failed requests over all results.
func errorCount(results []result) int {
	n := 0
	for _, r := range results {
		n += r.Load.Errors + r.Warmup.Errors
	}
	return n
}

// median returns the median of value over impl's results.
func median(results []result, impl string, value func(result) float64) float64 {
	var vs []float64
	for _, r := range results {
		if r.Impl == impl {
			vs = append(vs, value(r))
		}
	}
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// num formats v with three significant digits or so.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func mibf(b uint64) float64 { return float64(b) / (1 << 20) }

// writeJSON writes the flags and every result to path.
func writeJSON(path string, c config, results []result) error {
	data, err := json.MarshalIndent(map[string]any{
		"when":     time.Now().UTC().Format(time.RFC3339),
		"rate":     c.rate,
		"duration": c.duration.String(),
		"warmup":   c.warmup.String(),
		"conns":    c.conns,
		"rounds":   c.rounds,
		"results":  results,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}
