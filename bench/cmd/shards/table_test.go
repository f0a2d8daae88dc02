package main

import (
	"strings"
	"testing"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// report is a replica's report with cached objects, CPU, heap, reconciles
// and ConfigMap watch bytes, plus 100 bytes of Lease traffic.
func report(cached int, cpu float64, heap uint64, reconciles, watchBytes int64) Report {
	return Report{
		Cached: cached, CPUSeconds: cpu, Mem: e2e.Mem{Heap: heap}, Counts: e2e.Counts{Reconciles: reconciles},
		Traffic: Traffic{"configmaps WATCH": {Requests: 1, Bytes: watchBytes}, "leases PUT": {Requests: 1, Bytes: 100}},
	}
}

func TestPrintTables(t *testing.T) {
	var zero Report
	one := &round{Replicas: 1, Identities: []string{"n1-r1"},
		Start: []Report{zero}, End: []Report{report(100, 4, 1000, 200, 10_000)}}
	// Two replicas that each do half the single one's work, but receive
	// all of its watch bytes (client-side filtering).
	two := &round{Replicas: 2, Identities: []string{"n2-r1", "n2-r2"},
		Start: []Report{zero, zero},
		End:   []Report{report(40, 2, 500, 80, 10_000), report(60, 2, 500, 120, 10_000)}}
	var b strings.Builder
	printTables(&b, config{objects: 100}, "client", []*round{one, two})
	out := b.String()
	for _, want := range []string{
		"| 2 | n2-r1 | 0.0% | 40 (40.0%) | 0 KiB | 10 KiB | 10 KiB | 2 | 0.00 | 2.00 |",
		"| 2 | **sum** | 0.0% | 100 (100.0%) | 0 KiB | 20 KiB | 20 KiB | 4 | 0.00 | 4.00 |",
		// cached, bytes, lists and watches, CPU, heap, reconciles: mean replica / single
		"| 2 | 0.50 | 0.50 | 1.00 | 1.00 | 0.50 | 0.50 | 0.50 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| 1 | **sum**") {
		t.Errorf("a single replica has no sum row:\n%s", out)
	}
}
