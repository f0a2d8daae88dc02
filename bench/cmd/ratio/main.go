// Command ratio summarises side-by-side benchmark output as one
// steady/other ratio per process, which is how this module's rows are
// judged on a shared, noisy machine.
//
// Within one `go test -bench` process the host's load drifts slowly, and a
// sub-benchmark's `-count` repetitions run one after the other, so the
// rounds of one implementation can all land in a quiet minute and the
// other's in a loud one. Running the binary many times and taking the
// ratio of each process's pair spreads that drift over both sides. ratio
// reads the concatenated output of such runs (standard input, or the files
// named as arguments), pairs each impl=steady result with the other
// implementation's result of the same benchmark in the same process (a
// "goos:" header starts a process's output), and prints per benchmark the
// number of processes, the median ratio with a 95% bootstrap interval,
// the range, and with -target how many processes were above it.
//
//	cd bench && go test -c -o /tmp/b.test . &&
//	for i in $(seq 20); do /tmp/b.test -test.run '^$' -test.bench 'Workqueue/hot' -test.count 1; done |
//	go run ./cmd/ratio -target 1
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	target := flag.Float64("target", 0, "also count the processes whose ratio is above this (0: do not)")
	resamples := flag.Int("resamples", 10000, "bootstrap resamples for the median's interval")
	flag.Parse()
	if *resamples < 1 {
		fmt.Fprintf(os.Stderr, "ratio: -resamples must be at least 1, got %d\n", *resamples)
		os.Exit(2)
	}
	var in []io.Reader
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratio:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, os.Stdin)
	}
	ratios, err := parse(io.MultiReader(in...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}
	if len(ratios) == 0 {
		fmt.Fprintln(os.Stderr, "ratio: no impl=steady result with a partner in the input")
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, s := range summarise(ratios, *resamples, *target) {
		fmt.Fprintln(w, s)
	}
}
