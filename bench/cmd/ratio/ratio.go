package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// series is one benchmark's ratios, one per process pair.
type series struct {
	name   string // the benchmark's name without impl= and the -N suffix
	ratios []float64
}

// procsSuffix is the GOMAXPROCS suffix go test appends to a benchmark name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// parse reads benchmark output and returns, in the order the benchmarks
// first appear, the ratio of every impl=steady ns/op result to the result
// of the other implementation of the same benchmark in the same process.
// With -count N in one process the i-th results of each side pair up.
// Variants of steady (impl=steady-shared) are left out: they are not the
// implementation steady is compared with.
func parse(r io.Reader) ([]series, error) {
	var out []series
	index := map[string]int{}
	type sides struct{ steady, other []float64 }
	pending := map[string]*sides{} // this process's unpaired results
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) > 0 && fields[0] == "goos:" {
			clear(pending) // a new process: results do not pair across processes
			continue
		}
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name, impl, ok := splitImpl(procsSuffix.ReplaceAllString(fields[0], ""))
		if !ok {
			continue
		}
		k := slices.Index(fields, "ns/op")
		if k < 2 {
			continue
		}
		v, err := strconv.ParseFloat(fields[k-1], 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("line %d: %s: bad ns/op %q", line, fields[0], fields[k-1])
		}
		if impl != "steady" && strings.HasPrefix(impl, "steady-") {
			continue // a variant of steady (impl=steady-shared), not what it is compared with
		}
		p := pending[name]
		if p == nil {
			p = &sides{}
			pending[name] = p
		}
		if impl == "steady" {
			p.steady = append(p.steady, v)
		} else {
			p.other = append(p.other, v)
		}
		for len(p.steady) > 0 && len(p.other) > 0 {
			i, seen := index[name]
			if !seen {
				i = len(out)
				index[name] = i
				out = append(out, series{name: name})
			}
			out[i].ratios = append(out[i].ratios, p.steady[0]/p.other[0])
			p.steady, p.other = p.steady[1:], p.other[1:]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading benchmark output: %w", err)
	}
	return out, nil
}

// splitImpl takes the impl=X element out of a benchmark name.
func splitImpl(full string) (name, impl string, ok bool) {
	parts := strings.Split(full, "/")
	for i, p := range parts {
		if v, found := strings.CutPrefix(p, "impl="); found {
			return strings.Join(slices.Delete(parts, i, i+1), "/"), v, true
		}
	}
	return "", "", false
}

// summarise returns a line per series: processes, median ratio, its 95%
// bootstrap interval from resamples resamples (a fixed seed, so the same
// input gives the same line), the range, and with target > 0 how many
// ratios are above target.
func summarise(all []series, resamples int, target float64) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	var lines []string
	for _, s := range all {
		n := len(s.ratios)
		meds := make([]float64, resamples)
		sample := make([]float64, n)
		for i := range meds {
			for j := range sample {
				sample[j] = s.ratios[rng.IntN(n)]
			}
			meds[i] = median(sample)
		}
		slices.Sort(meds)
		line := fmt.Sprintf("%s\tprocesses %d\tmedian %.3f\t95%% %.3f–%.3f\trange %.3f–%.3f",
			s.name, n, median(slices.Clone(s.ratios)), quantile(meds, 0.025), quantile(meds, 0.975),
			slices.Min(s.ratios), slices.Max(s.ratios))
		if target > 0 {
			above := 0
			for _, r := range s.ratios {
				if r > target {
					above++
				}
			}
			line += fmt.Sprintf("\tabove %g: %d", target, above)
		}
		lines = append(lines, line)
	}
	return lines
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// quantile returns the q-quantile of sorted, which is not empty, by
// nearest rank.
func quantile(sorted []float64, q float64) float64 {
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
