// Command foo is a CRD operator in the spirit of Kubernetes'
// sample-controller: a Foo custom resource asks for a Deployment, and the
// operator creates it, owns it (an owner reference with controller=true),
// keeps its replicas in line, copies its status back into the Foo, and
// cleans up behind a finalizer when the Foo is deleted.
//
// Foo has two versions: v1beta1, stored, and the deprecated v1alpha1, which
// names its fields otherwise. The operator serves the webhook that converts
// between them, and a defaulting and a validating webhook, over TLS with
// certificates it makes itself (no cert-manager).
//
// It installs Foo's CustomResourceDefinition, then runs its story in a fresh
// namespace of the cluster cluster.LoadConfig finds (--kubeconfig,
// $KUBECONFIG, in-cluster, ~/.kube/config), and otherwise, or with -local,
// of a local control plane (etcd + kube-apiserver) it starts itself:
//
//	go run ./examples/foo [-local]
//
// The webhooks listen on 127.0.0.1, which only a local control plane's API
// server can call: with another cluster they are off, v1alpha1 is not
// served, and the story says so. README.md lists what deploying them takes.
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
	s, err := run(ctx, cfg, demo.Local(ctx), out)
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
	if s.Webhooks == "" {
		fmt.Fprintf(out, "  webhooks:             off (they listen on loopback; run with -local to see them)\n")
		return nil
	}
	fmt.Fprintf(out, "  webhooks:             at %s, certificates self-managed (CA in a Secret, injected as caBundle)\n", s.Webhooks)
	fmt.Fprintf(out, "  defaulted:            foo created without replicas or image stored as %s\n", s.Stored)
	fmt.Fprintf(out, "  validated:            invalid foo refused: %s\n", s.Invalid)
	fmt.Fprintf(out, "  immutable:            deployment rename refused: %s\n", s.Immutable)
	fmt.Fprintf(out, "  warned:               %q (validator), %q (API server)\n", s.ImageWarning, s.Deprecation)
	fmt.Fprintf(out, "  converted:            written as v1alpha1, read as v1beta1: %s\n", s.ReadAsV1beta1)
	fmt.Fprintf(out, "                        written as v1beta1, read as v1alpha1: %s\n", s.ReadAsV1alpha1)
	return nil
}
