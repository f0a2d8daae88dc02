// Command webhook compares steady's webhook server with controller-runtime's
// (issue 40): the CPU each spends per admission request and the latency
// the caller sees, with the same validator of Deployments.
//
// Each implementation runs in a child process of its own, built as an
// operator's main.go builds it: a manager with its webhook server and the
// builder's validator (steady: manager.WithWebhookServer and
// builder.WebhookManagedBy; controller-runtime: webhook.NewServer with
// kubebuilder's HTTP/2-off TLSOpts and ctrl.NewWebhookManagedBy), so each
// pays its whole per-request path, metrics included. Both call the logic
// of package internal/admit, serve HTTPS on loopback with the same
// certificate files (a CA and serving certificate the parent writes into a
// temporary directory), speak HTTP/1.1 only and log nowhere. No API server
// is needed: the parent sends the AdmissionReview v1 requests itself, as
// kube-apiserver does (JSON POSTs over keep-alive connections, at most
// -conns at once, each request in a goroutine of its own at a fixed rate
// whether or not earlier ones have been answered), for a 5.3 KiB
// Deployment as a real API server served it, managedFields included:
// CREATEs and UPDATEs (with oldObject) in the mix of admit.Mix, some
// warned about, some denied. Every answer is checked: HTTP 200, the
// request's uid, allowed or denied (403) and the warnings as the logic
// says.
//
// Each round starts each child in turn (the order flips every round),
// waits until it answers, sends -warmup of load unmeasured, then -rate
// requests per second for -duration, and measures the child's CPU time
// over that window (utime+stime from /proc/<pid>/stat) and every request's
// round trip. The table gives medians over rounds and the ratio steady /
// controller-runtime (lower is better).
//
// Usage, from the bench module:
//
//	go run ./cmd/webhook                           # 500 requests/s for 20 s, 3 rounds
//	go run ./cmd/webhook -duration 2s -rounds 1    # smoke test
//	go run ./cmd/webhook -profile-dir /tmp/prof    # CPU profiles of each child's window
//
// It is not a Go benchmark on purpose: CI, which runs every benchmark once,
// does not run it. It needs Linux (/proc).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/steadyctl/steady/bench/internal/admit"
)

// config holds the command's flags.
type config struct {
	rate       float64
	duration   time.Duration
	warmup     time.Duration
	rounds     int
	conns      int
	jsonPath   string
	profileDir string
	benchDir   string
}

func main() {
	var c config
	flag.Float64Var(&c.rate, "rate", 500, "admission requests per second")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "how long to measure each child")
	flag.DurationVar(&c.warmup, "warmup", 3*time.Second, "load each child this long, unmeasured, before measuring")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds; each runs both implementations, in alternating order")
	flag.IntVar(&c.conns, "conns", 8, "most connections open to a child at once")
	flag.StringVar(&c.jsonPath, "json", "", "also write every round's raw results to this file")
	flag.StringVar(&c.profileDir, "profile-dir", "", "write each child's CPU profile of the measured window into this directory")
	flag.StringVar(&c.benchDir, "bench-dir", ".", "directory of the bench module, where the children are built")
	flag.Parse()
	if c.rate <= 0 || c.duration <= 0 || c.rounds <= 0 || c.conns <= 0 || c.warmup < 0 || int(c.rate*c.duration.Seconds()) < 1 {
		fmt.Fprintln(os.Stderr, "webhook: -rate, -duration, -rounds and -conns must be positive, -warmup not negative")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, c)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "webhook: %v\n", err)
		os.Exit(1)
	}
}

// run is the whole program; every process it starts has ended when it
// returns, also when ctx is cancelled (Ctrl-C).
func run(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "steady-webhook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins, err := buildChildren(ctx, c.benchDir, tmp)
	if err != nil {
		return err
	}
	certDir := filepath.Join(tmp, "certs")
	if err := os.Mkdir(certDir, 0o700); err != nil {
		return err
	}
	caPEM, err := admit.WriteCerts(certDir)
	if err != nil {
		return err
	}
	cases, err := admit.Cases()
	if err != nil {
		return err
	}
	if c.profileDir != "" {
		if c.profileDir, err = filepath.Abs(c.profileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(c.profileDir, 0o755); err != nil {
			return fmt.Errorf("-profile-dir: %w", err)
		}
	}

	var results []result
	for round := 1; round <= c.rounds; round++ {
		order := impls
		if round%2 == 0 {
			order = []string{impls[1], impls[0]}
		}
		for _, impl := range order {
			r, err := runOne(ctx, c, bins[impl], impl, round, certDir, caPEM, cases)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, impl, err)
			}
			results = append(results, r)
		}
	}
	printTable(os.Stdout, c, results)
	if c.jsonPath != "" {
		if err := writeJSON(c.jsonPath, c, results); err != nil {
			return err
		}
	}
	if n := errorCount(results); n > 0 {
		return fmt.Errorf("%d requests failed or were answered wrongly (see the first errors above)", n)
	}
	return nil
}

// logf reports progress on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s webhook: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
