// Command mirror is steady's multi-kind example operator: it mirrors
// ConfigMaps labelled mirror.steady.dev/enabled=true into every namespace
// labelled mirror.steady.dev/target=true, and keeps the copies in step.
//
// It shows how a controller watches more than its primary kind: map
// functions (handler.EnqueueFunc) turn events of copies and of Namespaces
// into requests for source ConfigMaps, and a cache index (the counterpart of
// controller-runtime's field index) finds every copy of a source.
//
// It runs against the cluster cluster.LoadConfig finds (--kubeconfig,
// $KUBECONFIG, in-cluster, ~/.kube/config), and otherwise, or with -local,
// starts a local control plane (etcd + kube-apiserver) of its own:
//
//	go run ./examples/mirror [-local]
package main

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
)

func main() {
	demo.Main("mirror", play)
}

// play runs the story and prints its summary.
func play(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	s, err := run(ctx, cfg, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsummary:\n")
	fmt.Fprintf(out, "  %d story steps, each outcome verified against the API server\n", s.Steps)
	fmt.Fprintf(out, "  %d reconciles of the source for those %d changes: the operator's own writes come back as events too, and find everything in sync\n", s.Reconciles, s.Steps)
	fmt.Fprintf(out, "  copies created %d, updated %d, deleted %d\n", s.Created, s.Updated, s.Deleted)
	return nil
}
