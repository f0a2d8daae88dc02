package main

import (
	"fmt"
	"io"
)

// replicaRow is one replica's line of a table.
type replicaRow struct {
	owned                  float64 // fraction of the keyspace
	cached                 int
	startBytes, loadBytes  int64
	loadStream             int64 // of loadBytes: the ConfigMaps' lists and watches
	loadRequests           int64
	startCPU, loadCPU      float64
	rss, heap              uint64
	reconciles, loadRecons int64
}

// rowOf reads replica i's line from r.
func rowOf(r *round, i int) replicaRow {
	start, end := r.Start[i], r.End[i]
	delta := end.Traffic.Since(start.Traffic)
	load := delta.Total("")
	return replicaRow{
		owned: end.Owned, cached: end.Cached,
		startBytes: start.Traffic.Total("").Bytes, loadBytes: load.Bytes, loadStream: delta.Sum("configmaps LIST", "configmaps WATCH").Bytes, loadRequests: load.Requests,
		startCPU: start.CPUSeconds, loadCPU: end.CPUSeconds - start.CPUSeconds,
		rss: end.Mem.RSS, heap: end.Mem.Heap,
		reconciles: end.Counts.Reconciles, loadRecons: end.Counts.Reconciles - start.Counts.Reconciles,
	}
}

func (a replicaRow) plus(b replicaRow) replicaRow {
	return replicaRow{
		owned: a.owned + b.owned, cached: a.cached + b.cached,
		startBytes: a.startBytes + b.startBytes, loadBytes: a.loadBytes + b.loadBytes, loadStream: a.loadStream + b.loadStream, loadRequests: a.loadRequests + b.loadRequests,
		startCPU: a.startCPU + b.startCPU, loadCPU: a.loadCPU + b.loadCPU,
		rss: a.rss + b.rss, heap: a.heap + b.heap,
		reconciles: a.reconciles + b.reconciles, loadRecons: a.loadRecons + b.loadRecons,
	}
}

// printTables writes, for one filter mode, a Markdown table of every
// replica of every round with each round's sums, then each round's mean
// replica against the single replica's.
func printTables(w io.Writer, c config, filter string, rounds []*round) {
	fmt.Fprintf(w, "\n%s filtering, %d ConfigMaps; load %.0f updates/s for %v. Start: from exec until every object converged; load: from then until the load's updates converged.\n\n",
		filter, c.objects, c.rate, c.duration)
	fmt.Fprintln(w, "| replicas | replica | keyspace | cached objects | bytes received, start | bytes received, load | of which ConfigMap lists and watches | requests, load | CPU start (s) | CPU load (s) | RSS (MiB) | heap (MiB) | reconciles, load |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	line := func(n int, name string, rw replicaRow) {
		fmt.Fprintf(w, "| %d | %s | %.1f%% | %d (%.1f%%) | %s | %s | %s | %d | %.2f | %.2f | %.1f | %.1f | %d |\n",
			n, name, 100*rw.owned, rw.cached, 100*float64(rw.cached)/float64(c.objects), bytes(rw.startBytes), bytes(rw.loadBytes), bytes(rw.loadStream),
			rw.loadRequests, rw.startCPU, rw.loadCPU, mib(rw.rss), mib(rw.heap), rw.loadRecons)
	}
	for _, r := range rounds {
		var sum replicaRow
		for i, id := range r.Identities {
			rw := rowOf(r, i)
			line(r.Replicas, id, rw)
			sum = sum.plus(rw)
		}
		if r.Replicas > 1 {
			line(r.Replicas, "**sum**", sum)
		}
	}

	// The mean replica of each round against the single replica's.
	var one *replicaRow
	for _, r := range rounds {
		if r.Replicas == 1 {
			rw := rowOf(r, 0)
			one = &rw
		}
	}
	if one == nil {
		return
	}
	fmt.Fprintf(w, "\nThe mean replica against the single one (1/N is the ideal of sharding):\n\n")
	fmt.Fprintln(w, "| replicas | 1/N | cached objects | bytes received, load | ConfigMap lists and watches, load | CPU load | heap | reconciles, load |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rounds {
		var sum replicaRow
		for i := range r.Identities {
			sum = sum.plus(rowOf(r, i))
		}
		n := float64(r.Replicas)
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", r.Replicas, 1/n,
			float64(sum.cached)/n/float64(one.cached), float64(sum.loadBytes)/n/float64(one.loadBytes),
			float64(sum.loadStream)/n/float64(one.loadStream),
			sum.loadCPU/n/one.loadCPU, float64(sum.heap)/n/float64(one.heap), float64(sum.loadRecons)/n/float64(one.loadRecons))
	}
	fmt.Fprintln(w)
	for _, r := range rounds {
		fmt.Fprintf(w, "%d replica(s): settled in %.1f s, initial convergence %.1f s; load %d updates at %.0f/s, converged %.1f s after it\n",
			r.Replicas, r.SettleSeconds, r.InitialSeconds, r.Load.Sent, r.Load.Rate, r.LoadConverge)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// bytes formats n bytes in KiB or MiB.
func bytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
