// Command shards measures what sharding saves each replica of a steady
// operator (issue 23): for 1, 2 and 3 replicas over the same objects and
// load, how many objects each caches, how many bytes it receives from the
// API server, and how much CPU it spends, with the API server filtering
// (feature gate ShardedListAndWatch on) and with each replica filtering
// itself (gate off).
//
// For each filter mode the parent starts a real kube-apiserver and etcd
// (package testenv; with --feature-gates=ShardedListAndWatch=true for
// -filter server), seeds -objects ConfigMaps of -payload bytes, and then,
// for each N of -replicas, runs N replica processes (this binary, run as
// "shards replica"). Each replica is a sharded steady operator: a manager
// and a controller built with builder.Sharded(ring, shard.UID), all N
// members of one ring of their own, reconciling the ConfigMaps with the
// end-to-end benchmark's logic (internal/e2e) and writing with steady's
// client. The parent waits until every replica sees all N members and
// caches exactly the objects the ring gives it (the parent computes the
// shares from the objects' uids, as the replicas do) and every object has
// converged; asks each for its report; patches -rate ConfigMaps per second
// for -duration, round-robin over all of them; waits for convergence again;
// asks again; and stops them, which releases their Leases.
//
// Each replica counts, with a wrapper around its HTTP transport, every
// request and the response body bytes it reads (lists, watches, writes, the
// ring's Leases, discovery), and reports its cache size, process CPU time,
// RSS and live heap after a GC, and its reconciles. The tables, one per
// filter mode, show each replica's numbers in two phases: start (from exec
// to every object converged: the initial lists, the ring settling, the
// initial reconciles) and load (from then until the load's updates had
// converged), the sums per round, and the mean replica of each round
// against the single replica.
//
// Usage, from the bench module:
//
//	go run ./cmd/shards                                            # 3,000 objects, 1/2/3 replicas, both modes
//	go run ./cmd/shards -objects 300 -replicas 1,2 -duration 3s    # smoke test
//
// It is not a Go benchmark, so CI does not run it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/steadyctl/steady/testenv"
)

// config holds the command's flags.
type config struct {
	objects         int
	payload         int
	replicas        []int
	filters         []string
	rate            float64
	duration        time.Duration
	warmup          time.Duration
	workers         int
	writers         int
	settleTimeout   time.Duration
	convergeTimeout time.Duration
	jsonPath        string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replica" {
		if err := replicaMain(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "shards: %v\n", err)
			os.Exit(1)
		}
		return
	}
	c, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "shards: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, c)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "shards: %v\n", err)
		os.Exit(1)
	}
}

// parseFlags reads the parent's flags from args.
func parseFlags(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	var replicas, filters string
	fs.IntVar(&c.objects, "objects", 3000, "ConfigMaps to shard")
	fs.IntVar(&c.payload, "payload", 256, "bytes of filler data per ConfigMap")
	fs.StringVar(&replicas, "replicas", "1,2,3", "numbers of replicas to run, one round each, comma-separated")
	fs.StringVar(&filters, "filter", "server,client", "filter modes, comma-separated: server (the API server filters: "+
		"feature gate ShardedListAndWatch on) and client (gate off: each replica filters what it receives)")
	fs.Float64Var(&c.rate, "rate", 100, "load: ConfigMap updates per second, spread over all objects")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "load: how long")
	fs.DurationVar(&c.warmup, "warmup", 5*time.Second, "load the API server this long, without replicas, before the first round of each mode")
	fs.IntVar(&c.workers, "workers", 4, "maximum concurrent reconciles per replica")
	fs.IntVar(&c.writers, "writers", 16, "load: concurrent writers")
	fs.DurationVar(&c.settleTimeout, "settle-timeout", 3*time.Minute, "how long to wait for the replicas to join the ring and cache their shares")
	fs.DurationVar(&c.convergeTimeout, "converge-timeout", 5*time.Minute, "how long to wait for the objects to converge")
	fs.StringVar(&c.jsonPath, "json", "", "also write every round's raw reports to this file")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, s := range strings.Split(replicas, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-replicas %q: %q is not a positive number", replicas, s)
		}
		c.replicas = append(c.replicas, n)
	}
	for _, f := range strings.Split(filters, ",") {
		if f = strings.TrimSpace(f); f != "server" && f != "client" {
			return c, fmt.Errorf("-filter %q: unknown mode %q (want server or client)", filters, f)
		}
		c.filters = append(c.filters, strings.TrimSpace(f))
	}
	if c.objects <= 0 || c.workers <= 0 || c.writers <= 0 || c.rate <= 0 || c.duration <= 0 {
		return c, errors.New("-objects, -workers, -writers, -rate and -duration must be positive")
	}
	return c, nil
}

// run is the whole program; everything it starts is released before it
// returns, also when ctx is cancelled (Ctrl-C).
func run(ctx context.Context, c config) error {
	results := map[string][]*round{}
	for _, filter := range c.filters {
		rounds, err := runMode(ctx, c, filter)
		results[filter] = rounds
		if err != nil {
			return fmt.Errorf("%s filtering: %w", filter, err)
		}
		printTables(os.Stdout, c, filter, rounds)
	}
	if c.jsonPath == "" {
		return nil
	}
	data, err := json.MarshalIndent(map[string]any{
		"when": time.Now().UTC().Format(time.RFC3339), "objects": c.objects, "payload": c.payload,
		"rate": c.rate, "duration": c.duration.String(), "workers": c.workers, "results": results,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.jsonPath, append(data, '\n'), 0o644)
}

// runMode starts a control plane for filter, seeds it and runs every
// round of c.replicas against it.
func runMode(ctx context.Context, c config, filter string) ([]*round, error) {
	var opts []testenv.Option
	if filter == "server" {
		opts = append(opts, testenv.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true"))
	}
	logf("%s filtering: starting kube-apiserver and etcd", filter)
	env, err := testenv.Start(ctx, append(opts, testenv.WithProgress(os.Stderr))...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := env.Stop(); err != nil {
			logf("stopping testenv: %v", err)
		}
	}()
	cl, err := newCluster(env, "bench-shards")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cl.seed(ctx, c.objects, c.payload, 32); err != nil {
		return nil, err
	}
	logf("created %d ConfigMaps in %v", c.objects, time.Since(start).Round(time.Millisecond))
	if c.warmup > 0 {
		// The first round would otherwise meet a colder API server.
		if _, err := cl.load(ctx, c.rate, c.warmup, c.writers, "warmup"); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	var rounds []*round
	for _, n := range c.replicas {
		r, err := runRound(ctx, c, cl, filter, n)
		if err != nil {
			return rounds, fmt.Errorf("%d replica(s): %w", n, err)
		}
		rounds = append(rounds, r)
	}
	return rounds, nil
}

// logf reports progress on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s shards: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
