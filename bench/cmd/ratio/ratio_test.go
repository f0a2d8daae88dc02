package main

import (
	"strconv"
	"strings"
	"testing"
)

// Two processes' output: the first ran with -count 2, so its results pair
// up in order; the second has a benchmark with no partner, which is left
// out, and a controller-runtime partner.
const sample = `goos: linux
goarch: amd64
pkg: github.com/steadyctl/steady/bench
BenchmarkWorkqueue/hot/workers=1/impl=steady-2         	100	        30.0 ns/op	         0.05 processed/op	       0 B/op	       0 allocs/op
BenchmarkWorkqueue/hot/workers=1/impl=steady-2         	100	        20.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkWorkqueue/hot/workers=1/impl=client-go-2      	100	        40.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkWorkqueue/hot/workers=1/impl=client-go-2      	100	        40.0 ns/op	       0 B/op	       0 allocs/op
PASS
goos: linux
BenchmarkWorkqueue/hot/workers=1/impl=client-go-2      	100	        50.0 ns/op
BenchmarkWorkqueue/hot/workers=1/impl=steady-2         	100	        60.0 ns/op
BenchmarkWorkqueue/ratelimited/impl=steady-2           	100	       200 ns/op
BenchmarkEnqueuePath/impl=steady-2                     	100	       150 ns/op
BenchmarkEnqueuePath/impl=controller-runtime-2         	100	       200 ns/op
PASS
`

func TestParsePairsWithinAProcess(t *testing.T) {
	got, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := []series{
		{"BenchmarkWorkqueue/hot/workers=1", []float64{0.75, 0.5, 1.2}},
		{"BenchmarkEnqueuePath", []float64{0.75}},
	}
	if len(got) != len(want) {
		t.Fatalf("parse = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].name != want[i].name || !equal(got[i].ratios, want[i].ratios) {
			t.Errorf("series %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestParseDoesNotPairAcrossProcesses(t *testing.T) {
	in := "goos: linux\nBenchmarkX/impl=steady-2 1 10 ns/op\ngoos: linux\nBenchmarkX/impl=client-go-2 1 20 ns/op\n"
	got, err := parse(strings.NewReader(in))
	if err != nil || len(got) != 0 {
		t.Fatalf("parse = %v, %v; want no series", got, err)
	}
}

// A variant of steady between steady and the other implementation, as
// BenchmarkInformerEvent's impl=steady-shared runs, is not paired with
// steady.
func TestParseSkipsSteadyVariants(t *testing.T) {
	in := "goos: linux\nBenchmarkX/impl=steady-2 1 30 ns/op\nBenchmarkX/impl=steady-shared-2 1 10 ns/op\nBenchmarkX/impl=client-go-2 1 40 ns/op\n"
	got, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !equal(got[0].ratios, []float64{0.75}) {
		t.Fatalf("parse = %v, want one series with ratio 0.75", got)
	}
}

func TestParseRejectsABadValue(t *testing.T) {
	_, err := parse(strings.NewReader("BenchmarkX/impl=steady-2 1 -3 ns/op\n"))
	if err == nil || !strings.Contains(err.Error(), "BenchmarkX/impl=steady-2") {
		t.Fatalf("parse error = %v, want one naming the benchmark", err)
	}
}

func TestSummarise(t *testing.T) {
	ratios := []float64{0.4, 0.45, 0.5, 0.55, 0.6}
	lines := summarise([]series{{"BenchmarkX", ratios}}, 2000, 0.5)
	if len(lines) != 1 {
		t.Fatalf("summarise = %q", lines)
	}
	for _, part := range []string{"BenchmarkX", "processes 5", "median 0.500", "range 0.400–0.600", "above 0.5: 2"} {
		if !strings.Contains(lines[0], part) {
			t.Errorf("summary %q lacks %q", lines[0], part)
		}
	}
	// The interval lies within the range and holds the median.
	lo, hi, err := interval(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	if lo < 0.4 || hi > 0.6 || lo > 0.5 || hi < 0.5 {
		t.Errorf("interval %.3f–%.3f, want within 0.4–0.6 around 0.5", lo, hi)
	}
	if again := summarise([]series{{"BenchmarkX", ratios}}, 2000, 0.5); again[0] != lines[0] {
		t.Errorf("summarise is not repeatable: %q then %q", lines[0], again[0])
	}
}

func TestMedianOfEvenCount(t *testing.T) {
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Fatalf("median = %v, want 2.5", got)
	}
}

// interval reads the "95% lo–hi" field of a summary line.
func interval(line string) (lo, hi float64, err error) {
	_, rest, _ := strings.Cut(line, "95% ")
	field, _, _ := strings.Cut(rest, "\t")
	a, b, _ := strings.Cut(field, "–")
	if lo, err = strconv.ParseFloat(a, 64); err == nil {
		hi, err = strconv.ParseFloat(b, 64)
	}
	return lo, hi, err
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return true
}
