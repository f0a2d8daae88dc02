// Command quickstart is steady's first example operator: a Deployment
// reconciler that records what it has seen in the Deployment's status.
//
// It shows the trap every operator author meets once — a reconciler that
// writes status triggers an update event, which reconciles again, which
// writes status again — and how predicate.GenerationChanged breaks that loop.
//
// It runs against the cluster cluster.LoadConfig finds (--kubeconfig,
// $KUBECONFIG, in-cluster, ~/.kube/config; --context picks a context), in
// a namespace of its own that it deletes afterwards, and otherwise, or
// with -local, starts a local control plane (etcd + kube-apiserver):
//
//	go run ./examples/quickstart [-local] [--kubeconfig path] [--context name]
package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
)

func main() {
	demo.Main("quickstart", play)
}

// play runs the story and prints its summary.
func play(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	s, err := run(ctx, cfg, out, 3*time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsummary:\n")
	fmt.Fprintf(out, "  with GenerationChanged: %d reconciles for %d spec versions — it settles\n", s.WithPredicate, s.SpecVersions)
	fmt.Fprintf(out, "  without a predicate:    %d reconciles in %s, still going — every status write triggers the next\n", s.WithoutPredicate, s.LoopWindow)
	fmt.Fprintf(out, "  (client-side throttling: %s)\n", s.Throttle)
	return nil
}
