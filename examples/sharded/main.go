// Command sharded is steady's example of an operator run as N replicas that
// share its objects, each caching, receiving and reconciling about 1/N of
// them, with coordination.k8s.io Leases as the only coordination.
//
// The operator annotates every ConfigMap labelled
// sharded.steady.dev/enabled=true with the name of the replica that
// reconciled it (sharded.steady.dev/reconciled-by), so that who owns what
// can be seen with kubectl. Its one controller is sharded by uid with
// builder.Sharded(ring, shard.UID).
//
// Run without arguments, it plays the story: three replicas in one process,
// a few hundred ConfigMaps shared between them, one replica killed without
// releasing its Lease and its objects taken over, a fourth added. It runs
// against the cluster cluster.Load finds (--kubeconfig, $KUBECONFIG,
// in-cluster), in a namespace of its own that it deletes afterwards, and
// otherwise, or with -local, against a local control plane started with
// kube-apiserver's ShardedListAndWatch feature gate on:
//
//	go run ./examples/sharded [-local] [--kubeconfig path] [--context name]
//
// With the replica subcommand it is one replica, as it runs in a pod of the
// Deployment in deploy.yaml:
//
//	go run ./examples/sharded replica [-identity name] [-ring-namespace ns] [-namespace ns]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
	"github.com/steadyctl/steady/testenv"
)

// shardedGate turns on kube-apiserver's server-side sharded list and
// watch (alpha in Kubernetes 1.36), which the local control plane needs for
// the API server to filter; without it the replicas filter themselves.
const shardedGate = "--feature-gates=ShardedListAndWatch=true"

// localControlPlane is how the story's local control plane, and the
// test's, are started.
var localControlPlane = []testenv.Option{testenv.WithAPIServerFlags(shardedGate)}

// storyObjects is the number of ConfigMaps the story shares.
const storyObjects = 300

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replica" {
		if err := replicaMain(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "sharded replica: %v\n", err)
			os.Exit(1)
		}
		return
	}
	demo.Main("sharded", play, demo.WithControlPlane(localControlPlane...))
}

// play runs the story and prints its summary.
func play(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	s, err := run(ctx, cfg, out, storyObjects)
	if err != nil {
		return err
	}
	fmt.Fprint(out, s.String())
	return nil
}

// String is the summary as the story prints it.
func (s summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nsummary:\n")
	fmt.Fprintf(&b, "  %d ConfigMaps: %d reconciled, %d annotated by the replica that owns them\n", s.Objects, s.Reconciled, s.Annotated)
	var cached, modes []string
	for _, sh := range s.Shares {
		cached = append(cached, fmt.Sprintf("%s %d (%.1f%%)", sh.Replica, sh.Cached, 100*float64(sh.Cached)/float64(s.Objects)))
		modes = append(modes, sh.Mode.String())
	}
	fmt.Fprintf(&b, "  three replicas cached %s, filtering: %s\n", strings.Join(cached, ", "), strings.Join(modes, ", "))
	fmt.Fprintf(&b, "  %s killed without releasing its Lease: its %d ConfigMaps taken over %s later (lease duration %s)\n",
		s.Killed, s.takenOver(), s.Takeover.Round(100*time.Millisecond), s.Lease)
	fmt.Fprintf(&b, "  %s joined and took %d (%.1f%%); %d moved between the replicas that kept running\n",
		s.Joined, s.Moved, 100*float64(s.Moved)/float64(s.Objects), len(s.Strays))
	fmt.Fprintf(&b, "  %d reconciles, %d of them of a key another replica was reconciling at the same time\n", s.Reconciles, len(s.Overlaps))
	return b.String()
}
