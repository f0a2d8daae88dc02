package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// result is one implementation's run in one round.
type result struct {
	Impl  string `json:"impl"`
	Round int    `json:"round"`
	// SyncWallMillis is the sync time as the parent saw it: from starting
	// the child process to reading its synced report.
	SyncWallMillis float64 `json:"sync_wall_ms"`
	// InitialSeconds is the time from the sync to every object converged.
	InitialSeconds float64 `json:"initial_converge_s"`
	// Load is what the load generator achieved; LoadConvergeMillis the time
	// from its end to every object converged.
	Load               loadStats `json:"load"`
	LoadConvergeMillis float64   `json:"load_converge_ms"`
	// LoadAvg is /proc/loadavg when the child started and when it stopped:
	// the machine is shared, and this says how busy it was.
	LoadAvg [2]string `json:"loadavg"`
	// APIServerRSS and APIServerPeakRSS are kube-apiserver's resident set
	// size and its high-water mark when the child stopped (0 if unknown).
	APIServerRSS     uint64 `json:"apiserver_rss_bytes"`
	APIServerPeakRSS uint64 `json:"apiserver_peak_rss_bytes"`

	// The child's reports: when synced, when the initial objects had
	// converged, when the load's updates had converged, and after it stopped.
	Synced    e2e.Report `json:"synced"`
	Initial   e2e.Report `json:"initial"`
	AfterLoad e2e.Report `json:"after_load"`
	Final     e2e.Report `json:"final"`
}

// quiet is how long the parent waits after convergence before asking for
// counters, so that the reconciles the controller's own last writes caused
// are counted in the phase they belong to.
const quiet = time.Second

// runOne runs one implementation's child through the whole scenario.
func runOne(ctx context.Context, c config, cl *cluster, bin, impl string, round int) (result, error) {
	res := result{Impl: impl, Round: round}
	run := fmt.Sprintf("r%d-%s", round, impl)
	args := []string{"-kubeconfig", cl.kubeconfig, "-namespace", cl.namespace, "-kind", string(c.kind), "-run", run,
		"-workers", strconv.Itoa(c.workers), "-managed-fields", c.managedFields, "-protocol", c.protocol}
	if c.profileDir != "" {
		args = append(args, "-profile", filepath.Join(c.profileDir, run))
	}
	if impl == "steady" && c.steady != "" {
		args = append(args, "-steady", c.steady)
	}

	res.LoadAvg[0] = loadAvg()
	logf("round %d: %s (load average %s)", round, impl, res.LoadAvg[0])
	start := time.Now()
	ch, err := startChild(ctx, impl, bin, args...)
	if err != nil {
		return res, err
	}
	defer ch.kill()
	if res.Synced, err = ch.next(ctx, e2e.PhaseSynced, 5*time.Minute); err != nil {
		return res, err
	}
	res.SyncWallMillis = float64(time.Since(start)) / float64(time.Millisecond)
	logf("  synced in %.0f ms (%.0f ms from exec), RSS %s, heap %s", res.Synced.SyncMillis, res.SyncWallMillis,
		mib(res.Synced.Mem.RSS), mib(res.Synced.Mem.Heap))

	took, err := cl.waitConverged(ctx, run, c.convergeTimeout)
	if err != nil {
		return res, fmt.Errorf("initial convergence: %w", err)
	}
	res.InitialSeconds = took.Seconds()
	time.Sleep(quiet)
	if res.Initial, err = ch.report(ctx); err != nil {
		return res, err
	}
	logf("  %d objects converged in %.1f s: %d reconciles, %d API requests", len(cl.names), res.InitialSeconds,
		res.Initial.Counts.Reconciles, res.Initial.Requests.Total)

	if res.Load, err = cl.generateLoad(ctx, c.rate, c.duration, c.writers, run); err != nil {
		return res, fmt.Errorf("load: %w", err)
	}
	logf("  load: %d updates sent in %.1f s (%.0f/s), %d failed; round trip p50 %.1f ms, p99 %.1f ms",
		res.Load.Sent, res.Load.Seconds, res.Load.Rate, res.Load.Failed, res.Load.RoundTripP50, res.Load.RoundTripP99)
	if took, err = cl.waitConverged(ctx, run, c.convergeTimeout); err != nil {
		return res, fmt.Errorf("convergence after the load: %w", err)
	}
	res.LoadConvergeMillis = float64(took) / float64(time.Millisecond)
	time.Sleep(quiet)
	if res.AfterLoad, err = ch.report(ctx); err != nil {
		return res, err
	}
	lc := res.AfterLoad.Counts
	logf("  latency p50 %.1f ms, p99 %.1f ms over %d updates; %d reconciles, %d API requests in all", lc.LatencyP50, lc.LatencyP99,
		lc.LatencySamples, lc.Reconciles, res.AfterLoad.Requests.Total)

	if res.Final, err = ch.stop(ctx); err != nil {
		return res, err
	}
	res.LoadAvg[1] = loadAvg()
	res.APIServerRSS, res.APIServerPeakRSS, _ = apiServerRSS()
	return res, nil
}

// loadAvg returns the first three fields of /proc/loadavg, or "?".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
