package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// row is one line of the table: a measurement taken from each result.
type row struct {
	name   string
	value  func(result) float64
	target float64 // the steady / controller-runtime ratio to stay at or under; 0: none
}

// targets are issue 24's ratios for the table c describes: the
// custom-resource rows, the scale row (100,000 objects or more) and the
// 10,000-ConfigMap rows judge different metrics.
type targets struct{ sync, cpuSynced, rss, heap, cpuInitial, p99 float64 }

func targetsFor(c config) targets {
	switch {
	case c.kind == e2e.KindCR:
		return targets{sync: 0.5, rss: 0.6, heap: 0.4}
	case c.objects >= 100000:
		return targets{sync: 0.7, heap: 0.4}
	default:
		return targets{cpuSynced: 0.6, rss: 0.6, heap: 0.4, cpuInitial: 0.6, p99: 1.0}
	}
}

func rows(c config) []row {
	t := targetsFor(c)
	counts := func(r result) (reconciles, requests float64) {
		return float64(r.AfterLoad.Counts.Reconciles - r.Initial.Counts.Reconciles),
			float64(r.AfterLoad.Requests.Total - r.Initial.Requests.Total)
	}
	return []row{
		{"sync time, start → cache synced (ms)", func(r result) float64 { return r.Synced.SyncMillis }, t.sync},
		{"sync time incl. process start (ms)", func(r result) float64 { return r.SyncWallMillis }, 0},
		{"child CPU until synced (s)", func(r result) float64 { return r.Synced.CPUSeconds }, t.cpuSynced},
		{"RSS after sync (MiB)", func(r result) float64 { return mibf(r.Synced.Mem.RSS) }, t.rss},
		{"  of which file pages (MiB)", func(r result) float64 { return mibf(r.Synced.Mem.RSSFile) }, 0},
		{"  of which anonymous (MiB)", func(r result) float64 { return mibf(r.Synced.Mem.RSSAnon) }, 0},
		{"Go heap after sync (MiB)", func(r result) float64 { return mibf(r.Synced.Mem.Heap) }, t.heap},
		{"RSS after load (MiB)", func(r result) float64 { return mibf(r.AfterLoad.Mem.RSS) }, 0},
		{"peak RSS (MiB)", func(r result) float64 { return mibf(r.Final.Mem.PeakRSS) }, 0},
		{fmt.Sprintf("initial reconcile of %d objects (s)", c.objects), func(r result) float64 { return r.InitialSeconds }, 0},
		{"child CPU, initial reconcile (s)", func(r result) float64 { return r.Initial.CPUSeconds - r.Synced.CPUSeconds }, t.cpuInitial},
		{"reconciles, initial", func(r result) float64 { return float64(r.Initial.Counts.Reconciles) }, 0},
		{"API requests, initial", func(r result) float64 { return float64(r.Initial.Requests.Total) }, 1.0},
		{"load achieved (updates/s, higher is better)", func(r result) float64 { return r.Load.Rate }, 0},
		{"event→reconcile latency p50 (ms)", func(r result) float64 { return r.AfterLoad.Counts.LatencyP50 }, 0},
		{"event→reconcile latency p99 (ms)", func(r result) float64 { return r.AfterLoad.Counts.LatencyP99 }, t.p99},
		{"child CPU, load phase (s)", func(r result) float64 { return r.AfterLoad.CPUSeconds - r.Initial.CPUSeconds }, 0},
		{"reconciles, load", func(r result) float64 { n, _ := counts(r); return n }, 0},
		{"API requests, load", func(r result) float64 { _, n := counts(r); return n }, 1.0},
		{"reconciles, total", func(r result) float64 { return float64(r.AfterLoad.Counts.Reconciles) }, 0},
		{"API requests, total", func(r result) float64 { return float64(r.AfterLoad.Requests.Total) }, 1.0},
		{"write conflicts, total", func(r result) float64 { return float64(r.AfterLoad.Counts.Conflicts) }, 0},
	}
}

// printTable writes the medians over rounds as a Markdown table, then what
// the children's requests were made of.
func printTable(w io.Writer, c config, results []result) {
	settings := ""
	if c.steady != "" {
		settings = ", steady child " + c.steady
	}
	if c.featureGates != "" {
		settings += ", kube-apiserver feature gates " + c.featureGates
	}
	if name := e2e.ProtocolName(c.protocol); name != "" {
		settings += ", both children on " + name
	}
	fmt.Fprintf(w, "\n%d %s, load %.0f updates/s for %v, %d concurrent reconciles, managed fields %s, scheme %s%s, %d round(s); medians, ratio = steady / controller-runtime\n\n",
		c.objects, c.kind.Plural(), c.rate, c.duration, c.workers, c.managedFields, c.scheme, settings, c.rounds)
	fmt.Fprintln(w, "| metric | steady | controller-runtime | ratio | target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, rw := range rows(c) {
		s, cr := median(results, impls[0], rw.value), median(results, impls[1], rw.value)
		ratio, target := "–", ""
		if cr != 0 {
			ratio = fmt.Sprintf("%.2f", s/cr)
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
		fmt.Fprintf(w, "round %d, %s: load average %s → %s; requests %s; responses %s; latency samples %d of %d updates; kube-apiserver RSS %s, peak %s\n",
			r.Round, r.Impl, r.LoadAvg[0], r.LoadAvg[1], counts(r.AfterLoad.Requests.ByKind),
			counts(r.AfterLoad.Requests.ByContentType), r.AfterLoad.Counts.LatencySamples, r.Load.Sent,
			mib(r.APIServerRSS), mib(r.APIServerPeakRSS))
	}
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

func counts(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func mibf(b uint64) float64 { return float64(b) / (1 << 20) }

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", mibf(b)) }

// writeJSON writes the flags and every result to path.
func writeJSON(path string, c config, results []result) error {
	data, err := json.MarshalIndent(map[string]any{
		"when":           time.Now().UTC().Format(time.RFC3339),
		"kind":           c.kind,
		"objects":        c.objects,
		"rate":           c.rate,
		"duration":       c.duration.String(),
		"workers":        c.workers,
		"managed_fields": c.managedFields,
		"steady":         c.steady,
		"scheme":         c.scheme,
		"feature_gates":  c.featureGates,
		"rounds":         c.rounds,
		"results":        results,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
