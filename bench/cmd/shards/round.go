package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// round is one filter mode's run of n replicas, and what it measured.
type round struct {
	Filter     string   `json:"filter"`
	Replicas   int      `json:"replicas"`
	Identities []string `json:"identities"`
	// Expected is the number of objects the ring gives each replica.
	Expected map[string]int `json:"expected"`
	// SettleSeconds is the time from starting the replicas until every one
	// has joined the ring, seen all n members and cached exactly its share;
	// InitialSeconds from then until every object had converged.
	SettleSeconds  float64   `json:"settle_s"`
	InitialSeconds float64   `json:"initial_converge_s"`
	Load           loadStats `json:"load"`
	LoadConverge   float64   `json:"load_converge_s"`
	// The replicas' reports, in the order of Identities: once the initial
	// objects had converged (the baseline of the load phase), once the
	// load's updates had, and after they stopped.
	Start []Report `json:"start"`
	End   []Report `json:"end"`
	Final []Report `json:"final"`
}

// quiet is how long the parent waits after convergence before asking for
// reports, so that the reconciles of the replicas' own last writes land in
// the phase they belong to.
const quiet = time.Second

// runRound starts n replicas of a ring of their own, waits until they have
// settled and converged every object, drives the load, waits for
// convergence again, and stops them.
func runRound(ctx context.Context, c config, cl *testCluster, filter string, n int) (*round, error) {
	run := fmt.Sprintf("%s-n%d", filter, n)
	r := &round{Filter: filter, Replicas: n}
	for i := 1; i <= n; i++ {
		r.Identities = append(r.Identities, fmt.Sprintf("%s-r%d", run, i))
	}
	var err error
	if r.Expected, err = cl.expected(r.Identities); err != nil {
		return r, err
	}
	logf("%s filtering, %d replica(s): the ring gives them %v objects", filter, n, counts(r.Identities, r.Expected))

	start := time.Now()
	var ps []*process
	defer func() {
		for _, p := range ps {
			p.kill()
		}
	}()
	for _, id := range r.Identities {
		p, err := startProcess(ctx, id, "-kubeconfig", cl.kubeconfig, "-namespace", cl.namespace,
			"-ring", "bench-"+run, "-identity", id, "-run", run, "-workers", strconv.Itoa(c.workers))
		if err != nil {
			return r, err
		}
		ps = append(ps, p)
	}
	if err := waitSettled(ctx, ps, r, filter, c.settleTimeout); err != nil {
		return r, err
	}
	r.SettleSeconds = time.Since(start).Seconds()
	took, err := cl.waitConverged(ctx, run, c.convergeTimeout)
	if err != nil {
		return r, fmt.Errorf("initial convergence: %w", err)
	}
	r.InitialSeconds = took.Seconds()
	time.Sleep(quiet)
	if r.Start, err = askAll(ctx, ps, cmdReport); err != nil {
		return r, err
	}
	logf("  settled in %.1f s, %d objects converged %.1f s later", r.SettleSeconds, len(cl.names), r.InitialSeconds)

	if r.Load, err = cl.load(ctx, c.rate, c.duration, c.writers, run); err != nil {
		return r, fmt.Errorf("load: %w", err)
	}
	logf("  load: %d updates in %.1f s (%.0f/s), %d failed", r.Load.Sent, r.Load.Seconds, r.Load.Rate, r.Load.Failed)
	if took, err = cl.waitConverged(ctx, run, c.convergeTimeout); err != nil {
		return r, fmt.Errorf("convergence after the load: %w", err)
	}
	r.LoadConverge = took.Seconds()
	time.Sleep(quiet)
	if r.End, err = askAll(ctx, ps, cmdReport); err != nil {
		return r, err
	}
	for _, p := range ps {
		f, err := p.stop(ctx)
		if err != nil {
			return r, err
		}
		r.Final = append(r.Final, f)
	}
	return r, nil
}

// waitSettled polls the replicas until each has synced, sees the n members
// of r and caches exactly the objects the ring gives it, with the API
// server filtering (filter "server") or itself (filter "client").
func waitSettled(ctx context.Context, ps []*process, r *round, filter string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	lastLog := time.Now()
	for {
		reports, err := askAll(ctx, ps, cmdStatus)
		if err != nil {
			return err
		}
		var waiting []error
		for _, rep := range reports {
			if err := settled(rep, r, filter); err != nil {
				waiting = append(waiting, err)
			}
		}
		switch {
		case len(waiting) == 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("replicas not settled after %v: %w", timeout, errors.Join(waiting...))
		case time.Since(lastLog) > 5*time.Second:
			logf("  waiting for %d replica(s) to settle: %v", len(waiting), waiting[0])
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// settled says why rep is not settled yet, or nil.
func settled(rep Report, r *round, filter string) error {
	switch want := r.Expected[rep.Identity]; {
	case !rep.Synced:
		return fmt.Errorf("replica %s: cache not synced", rep.Identity)
	case !slices.Equal(rep.Members, slices.Sorted(slices.Values(r.Identities))):
		return fmt.Errorf("replica %s sees members %v", rep.Identity, rep.Members)
	case rep.Cached != want:
		return fmt.Errorf("replica %s caches %d ConfigMaps, its share is %d", rep.Identity, rep.Cached, want)
	case rep.Mode != filter:
		return fmt.Errorf("replica %s filters in mode %q, want %q", rep.Identity, rep.Mode, filter)
	}
	return nil
}

// counts lists m's values in the order of keys.
func counts(keys []string, m map[string]int) []int {
	vs := make([]int, len(keys))
	for i, k := range keys {
		vs[i] = m[k]
	}
	return vs
}
