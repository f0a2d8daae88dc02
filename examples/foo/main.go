// Command foo is a CRD operator in the spirit of Kubernetes'
// sample-controller: a Foo custom resource asks for a Deployment, and the
// operator creates it, owns it (an owner reference with controller=true),
// keeps its replicas in line, copies its status back into the Foo, and
// cleans up behind a finalizer when the Foo is deleted.
//
// It installs Foo's CustomResourceDefinition, then runs its story in a fresh
// namespace of the cluster cluster.LoadConfig finds (--kubeconfig,
// $KUBECONFIG, in-cluster, ~/.kube/config), and otherwise, or with -local,
// of a local control plane (etcd + kube-apiserver) it starts itself:
//
//	go run ./examples/foo [-local]
package main

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
)

func main() {
	demo.Main("foo", play)
}

// play runs the story and prints its summary.
func play(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	s, err := run(ctx, cfg, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsummary:\n")
	fmt.Fprintf(out, "  reconciles:           %d\n", s.Reconciles)
	fmt.Fprintf(out, "  deployments created:  %d (controller owner reference to its foo: %t)\n", s.DeploymentsCreated, s.ControllerRef)
	fmt.Fprintf(out, "  deployments scaled:   %d (to %d replicas)\n", s.DeploymentsScaled, s.ScaledTo)
	fmt.Fprintf(out, "  foo status followed:  availableReplicas %v, by %d status writes\n", s.AvailableFollowed, s.StatusWrites)
	fmt.Fprintf(out, "  refused deployments:  %d (%q)\n", s.Refused, s.WarningEvent)
	fmt.Fprintf(out, "  finalizer clean-ups:  %d, deleting %d deployment(s); foos gone: %t; someone else's deployment kept: %t\n",
		s.Cleanups, s.DeploymentsDeleted, s.FoosGone, s.ForeignKept)
	return nil
}
