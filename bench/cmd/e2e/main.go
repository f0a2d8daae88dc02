// Command e2e runs the end-to-end half of steady's side-by-side benchmarks:
// the same controller, written once with steady and once with
// controller-runtime, against a real kube-apiserver and etcd (package
// testenv), over ConfigMaps or (-kind cr) over a custom resource.
//
// The controller reads each object from its informer cache and, when the
// annotation bench.steady.dev/observed does not match the object's data
// (see internal/e2e.Desired), writes it with an Update. For each
// implementation and round the program measures:
//
//   - the time from the child's start to its cache holding the initial list
//     of -objects pre-existing objects, and the process's RSS and live Go
//     heap right then;
//   - the reconciles and API requests needed to converge those objects (every
//     run starts from objects the previous run's identifier no longer
//     matches, so every run does the same work);
//   - while a load generator updates -rate objects per second for -duration,
//     the latency from each update's send time to the first reconcile that
//     sees it (p50, p99), and again the reconciles and API requests until the
//     objects have converged.
//
// Kinds. With -kind configmap (the default) the objects are ConfigMaps,
// which both frameworks read and write as protobuf. With -kind cr they are
// Widgets (internal/e2e/api/v1alpha1), a custom resource with a typed Go
// struct as kubebuilder generates it; the parent installs its
// CustomResourceDefinition before seeding, the children register the type
// in their scheme, and everything speaks JSON, the only encoding the API
// server serves custom resources in. A Widget's spec.data carries what a
// ConfigMap's data does, and the load changes it the same way.
//
// Fairness. Each implementation runs in its own child process, built from its
// own main package, so RSS and heap belong to one framework only; the two
// children share everything else: the reconcile decision and bookkeeping
// (internal/e2e), the client configuration (protobuf, no client-side rate
// limit), the counting transport that sees every HTTP request, the number
// of concurrent reconciles, and the way the sync is detected (the informer's
// HasSynced, polled every millisecond). Both record Prometheus metrics
// without serving them and log nowhere. The parent starts one API server,
// seeds the objects once, runs the two children alternately (the order flips
// every round), drives the identical load and checks convergence itself with
// a LIST and a watch from it; the table shows medians over rounds and the
// steady / controller-runtime ratio (lower is better for every row but the
// achieved load rate).
//
// Usage, from the bench module:
//
//	go run ./cmd/e2e                                    # 10,000 objects, 1,000/s for 30 s, 3 rounds
//	go run ./cmd/e2e -objects 200 -duration 3s -rounds 1 # smoke test
//	go run ./cmd/e2e -kind cr -objects 300 -duration 3s -rounds 1
//	go run ./cmd/e2e -objects 100000 -rounds 1 -rate 100 # the scale row
//
// It is not a Go benchmark on purpose: CI, which runs every benchmark once,
// does not run it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/testenv"
)

// config holds the command's flags.
type config struct {
	kind            e2e.Kind
	objects         int
	payload         int
	rate            float64
	duration        time.Duration
	warmup          time.Duration
	rounds          int
	workers         int
	writers         int
	convergeTimeout time.Duration
	jsonPath        string
	profileDir      string
	benchDir        string
	managedFields   string
	steady          string
	protocol        string
	featureGates    string // kube-apiserver's --feature-gates
	scheme          string // the Go types of the children's scheme: used or client-go
}

func main() {
	var c config
	kind := flag.String("kind", string(e2e.KindConfigMap), "the objects: configmap, or cr for the custom resource Widget")
	flag.IntVar(&c.objects, "objects", 10000, "pre-existing objects")
	flag.IntVar(&c.payload, "payload", 256, "bytes of filler data per object")
	flag.Float64Var(&c.rate, "rate", 1000, "load: object updates per second")
	flag.DurationVar(&c.duration, "duration", 30*time.Second, "load: how long")
	flag.DurationVar(&c.warmup, "warmup", 5*time.Second, "load the API server this long, without a controller, before the first round")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds; each runs both implementations, in alternating order")
	flag.IntVar(&c.workers, "workers", 4, "maximum concurrent reconciles, both implementations")
	flag.IntVar(&c.writers, "writers", 32, "load: concurrent writers")
	flag.DurationVar(&c.convergeTimeout, "converge-timeout", 0,
		"how long to wait for the objects to converge (default 10 ms per object, at least 5 minutes)")
	flag.StringVar(&c.jsonPath, "json", "", "also write every round's raw results to this file")
	flag.StringVar(&c.profileDir, "profile-dir", "", "write each child's CPU and heap profiles, split at the sync, into this directory")
	flag.StringVar(&c.benchDir, "bench-dir", ".", "directory of the bench module, where the children are built")
	flag.StringVar(&c.managedFields, "managed-fields", "default",
		"managedFields in the caches: default (each framework's default: steady drops them, controller-runtime keeps them), keep or drop (both)")
	flag.StringVar(&c.steady, "steady", "", "settings of the steady child, comma-separated: echoes (drop own-write echoes), nogate (read-your-writes off), "+
		"nopq (the plain work queue), shared (shared caches: informer.WithCompact(false), reads DeepCopy before writing), "+
		"stock (steady's own wire code off: cluster.WithFastPaths(false), client-go's transport and codecs, caches of decoded objects whose reads copy), "+
		"off:http1, off:protobuf, off:cbor, off:compact (that fast path alone off: cluster.WithoutFastPaths), "+
		"manager (built on steady's manager and builder, as an operator's main.go, instead of its cluster, informer and controller packages); empty for steady's defaults")
	flag.StringVar(&c.protocol, "protocol", "default", "the HTTP version of both children's connections: default (each framework's own: "+
		"steady HTTP/1.1, controller-runtime HTTP/2), http1 or http2 (both)")
	flag.StringVar(&c.scheme, "scheme", "used",
		"the children's scheme, the same for both: used (the reconciled kind's group version only) or client-go "+
			"(client-go's scheme of every built-in kind, plus Widget, as kubebuilder's main.go; children built with the tag e2e_clientgoscheme)")
	flag.StringVar(&c.featureGates, "apiserver-feature-gates", "",
		"kube-apiserver's --feature-gates, e.g. CBORServingAndStorage=true (custom resources served as CBOR, which steady prefers); empty for none")
	flag.Parse()
	var err error
	if c.kind, err = e2e.ParseKind(*kind); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(2)
	}
	if c.scheme != "used" && c.scheme != "client-go" {
		fmt.Fprintf(os.Stderr, "e2e: -scheme %q: want used or client-go\n", c.scheme)
		os.Exit(2)
	}
	if !e2e.ValidProtocol(c.protocol) {
		fmt.Fprintf(os.Stderr, "e2e: -protocol %q: want default, http1 or http2\n", c.protocol)
		os.Exit(2)
	}
	if !e2e.ValidManagedFields(c.managedFields) {
		fmt.Fprintf(os.Stderr, "e2e: -managed-fields %q: want default, keep or drop\n", c.managedFields)
		os.Exit(2)
	}
	if c.objects <= 0 || c.rounds <= 0 || c.workers <= 0 || c.writers <= 0 || c.rate <= 0 {
		fmt.Fprintln(os.Stderr, "e2e: -objects, -rounds, -workers, -writers and -rate must be positive")
		os.Exit(2)
	}
	if c.convergeTimeout <= 0 {
		c.convergeTimeout = max(5*time.Minute, time.Duration(c.objects)*10*time.Millisecond)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, c)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
}

// run is the whole program; every resource it starts is released before it
// returns, also when ctx is cancelled (Ctrl-C).
func run(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "steady-e2e-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins, err := buildChildren(ctx, c.benchDir, tmp, c.scheme, slices.Contains(strings.Split(c.steady, ","), "manager"))
	if err != nil {
		return err
	}
	if c.profileDir != "" {
		if c.profileDir, err = filepath.Abs(c.profileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(c.profileDir, 0o755); err != nil {
			return err
		}
	}

	logf("starting kube-apiserver and etcd")
	opts := []testenv.Option{testenv.WithProgress(os.Stderr)}
	if c.featureGates != "" {
		opts = append(opts, testenv.WithAPIServerFlags("--feature-gates="+c.featureGates))
	}
	env, err := testenv.Start(ctx, opts...)
	if err != nil {
		return err
	}
	defer func() {
		if err := env.Stop(); err != nil {
			logf("stopping testenv: %v", err)
		}
	}()
	if c.kind == e2e.KindCR {
		if err := env.InstallCRDs(ctx, v1alpha1.CRD()); err != nil {
			return err
		}
	}
	cl, err := newCluster(env, "bench-e2e", c.kind)
	if err != nil {
		return err
	}
	if err := cl.createNamespace(ctx); err != nil {
		return err
	}
	start := time.Now()
	if err := cl.seed(ctx, c.objects, c.payload, 32); err != nil {
		return err
	}
	logf("created %d %s in %v; %s", c.objects, c.kind.Plural(), time.Since(start).Round(time.Millisecond), apiServerMem())
	if c.warmup > 0 {
		// The first child would otherwise meet a colder API server than
		// the others.
		ls, err := cl.generateLoad(ctx, c.rate, c.warmup, c.writers, "warmup")
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		logf("warm-up: %d updates in %.1f s (%.0f/s)", ls.Sent, ls.Seconds, ls.Rate)
	}

	var results []result
	for round := 1; round <= c.rounds; round++ {
		order := impls
		if round%2 == 0 {
			order = []string{impls[1], impls[0]}
		}
		for _, impl := range order {
			r, err := runOne(ctx, c, cl, bins[impl], impl, round)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, impl, err)
			}
			results = append(results, r)
		}
	}
	printTable(os.Stdout, c, results)
	if c.jsonPath != "" {
		return writeJSON(c.jsonPath, c, results)
	}
	return nil
}

// logf reports progress on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s e2e: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
