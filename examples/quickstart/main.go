// Command quickstart is steady's first example operator: a Deployment
// reconciler that records what it has seen in the Deployment's status.
//
// It shows the trap every operator author meets once — a reconciler that
// writes status triggers an update event, which reconciles again, which
// writes status again — and how predicate.GenerationChanged breaks that loop.
//
// It runs against the cluster in $KUBECONFIG when that is set, and otherwise
// starts a local control plane (etcd + kube-apiserver) of its own:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadyctl/steady/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mainErr(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func mainErr(ctx context.Context, out io.Writer) error {
	cfg, cleanup, err := clusterConfig(ctx, out)
	if err != nil {
		return err
	}
	defer cleanup()
	s, err := run(ctx, cfg, out, 3*time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsummary:\n")
	fmt.Fprintf(out, "  with GenerationChanged: %d reconciles for %d spec versions — it settles\n", s.WithPredicate, s.SpecVersions)
	fmt.Fprintf(out, "  without a predicate:    %d reconciles in %s, still going — every status write triggers the next\n", s.WithoutPredicate, s.LoopWindow)
	return nil
}

// clusterConfig returns the cluster of $KUBECONFIG, or starts a local one.
func clusterConfig(ctx context.Context, out io.Writer) (*rest.Config, func(), error) {
	if path := os.Getenv("KUBECONFIG"); path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, nil, fmt.Errorf("loading KUBECONFIG %s: %w", path, err)
		}
		fmt.Fprintf(out, "using the cluster in KUBECONFIG (%s)\n", cfg.Host)
		return cfg, func() {}, nil
	}
	fmt.Fprintln(out, "KUBECONFIG is not set: starting a local control plane (etcd + kube-apiserver)…")
	env, err := testenv.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "local control plane ready at %s\n", env.Config.Host)
	return env.Config, func() { env.Stop() }, nil
}
