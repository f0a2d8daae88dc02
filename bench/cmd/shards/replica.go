package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// The parent and a replica talk in lines, as bench/cmd/e2e's do: the parent
// writes a command on the replica's stdin, the replica answers with one
// JSON Report on stdout. Closing stdin stops the replica, which then writes
// a last Report (PhaseFinal) and exits; so does the parent's death.
const (
	// cmdStatus asks for a cheap Report, without Mem (no GC).
	cmdStatus = "status"
	// cmdReport asks for a full Report, with Mem after a GC.
	cmdReport = "report"
	// PhaseFinal marks the Report written after the manager stopped.
	PhaseFinal = "final"
)

// Report is what a replica tells the parent.
type Report struct {
	Identity string `json:"identity"`
	Phase    string `json:"phase"` // the command answered, or PhaseFinal
	// Synced is the ConfigMap informer's HasSynced; Mode its ShardMode
	// (server: the API server filters; client: the replica does).
	Synced bool   `json:"synced"`
	Mode   string `json:"mode"`
	// Members are the ring's live members as this replica sees them, and
	// Owned the fraction of the hash space it owns.
	Members []string `json:"members"`
	Owned   float64  `json:"owned"`
	// Cached is the number of ConfigMaps in the replica's cache.
	Cached     int        `json:"cached"`
	CPUSeconds float64    `json:"cpu_s"`
	Mem        e2e.Mem    `json:"mem"` // zero in a status Report
	Counts     e2e.Counts `json:"counts"`
	Traffic    Traffic    `json:"traffic"`
}

// replicaOptions are a replica's flags.
type replicaOptions struct {
	kubeconfig, namespace, ring, identity, run string
	workers                                    int
}

// replicaMain is the main function of a replica process (the command run
// as "shards replica …").
func replicaMain(args []string) error {
	t0 := time.Now()
	var o replicaOptions
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster")
	fs.StringVar(&o.namespace, "namespace", "", "namespace of the ConfigMaps and of the ring's Leases")
	fs.StringVar(&o.ring, "ring", "", "name of the ring")
	fs.StringVar(&o.identity, "identity", "", "this replica's identity in the ring")
	fs.StringVar(&o.run, "run", "", "run identifier, for the observed annotation (see internal/e2e.Desired)")
	fs.IntVar(&o.workers, "workers", 4, "maximum concurrent reconciles")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.kubeconfig == "" || o.namespace == "" || o.ring == "" || o.identity == "" || o.run == "" {
		return errors.New("usage: shards replica -kubeconfig path -namespace ns -ring name -identity id -run id [-workers n]")
	}
	rep, err := newReplica(o, t0)
	if err != nil {
		return fmt.Errorf("replica %s: %w", o.identity, err)
	}
	return rep.serve()
}

// replica is a sharded steady operator: a manager, and a controller
// sharded by uid over the ring, reconciling the ConfigMaps with the
// end-to-end benchmark's logic and writing with steady's client.
type replica struct {
	o       replicaOptions
	traffic traffic
	ring    *shard.Ring
	mgr     *manager.Manager
	cms     *informer.Informer[*corev1.ConfigMap]
	logic   *e2e.Logic
}

func newReplica(o replicaOptions, t0 time.Time) (*replica, error) {
	r := &replica{o: o, logic: e2e.NewLogic(o.run, t0)}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, err
	}
	// As the end-to-end benchmark's children: protobuf, no client-side
	// rate limit. Every request, the ring's included, is counted.
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.QPS = -1
	cfg.Wrap(r.traffic.wrap)
	if r.mgr, err = manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(o.namespace), manager.WithThrottle(cluster.NoThrottle)); err != nil {
		return nil, err
	}
	if r.ring, err = shard.New(r.mgr.Cluster(), o.ring, o.identity, shard.WithNamespace(o.namespace)); err != nil {
		return nil, err
	}
	// The informer the builder's For makes: the same kind, namespace and
	// selectors give the same shared informer.
	if r.cms, err = informer.For[*corev1.ConfigMap](r.mgr.Factory(), "", object.Selector{}); err != nil {
		return nil, err
	}
	cl, err := client.For[*corev1.ConfigMap](r.mgr.Factory(), "")
	if err != nil {
		return nil, err
	}
	err = builder.ControllerManagedBy(r.mgr).
		For(builder.Kind(&corev1.ConfigMap{})).
		Sharded(r.ring, shard.UID).
		WithOptions(controller.WithMaxConcurrentReconciles(o.workers)).
		Complete(&reconciler{cache: r.cms.Cache(), client: cl, logic: r.logic})
	return r, err
}

// serve runs the manager and answers the parent until stdin closes.
func (r *replica) serve() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.mgr.Start(ctx) }()

	lines := make(chan string)
	go func() {
		defer close(lines)
		for in := bufio.NewScanner(os.Stdin); in.Scan(); {
			lines <- in.Text()
		}
	}()
	out := json.NewEncoder(os.Stdout)
	for {
		select {
		case err := <-done:
			return fmt.Errorf("manager stopped: %v", err)
		case line, ok := <-lines:
			if !ok {
				cancel()
				return r.stop(out, done)
			}
			if line != cmdStatus && line != cmdReport {
				return fmt.Errorf("unknown command %q", line)
			}
			if err := out.Encode(r.report(line)); err != nil {
				return err
			}
		}
	}
}

// stop waits for the cancelled manager, which releases the replica's
// Lease, and writes the final Report.
func (r *replica) stop(out *json.Encoder, done <-chan error) error {
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("manager: %w", err)
		}
	case <-time.After(time.Minute):
		return errors.New("manager did not stop within a minute")
	}
	return out.Encode(r.report(PhaseFinal))
}

func (r *replica) report(phase string) Report {
	rep := Report{
		Identity: r.o.identity, Phase: phase,
		Synced: r.cms.HasSynced(), Mode: r.cms.ShardMode().String(),
		Members: r.ring.Members(), Owned: shard.Fraction(r.ring.Owned()),
		Cached:     r.cms.Cache().Len(),
		CPUSeconds: e2e.CPUSeconds(),
		Counts:     r.logic.Counts(), Traffic: r.traffic.snapshot(),
	}
	if phase != cmdStatus {
		rep.Mem = e2e.ReadMem()
	}
	return rep
}

// reconciler is the end-to-end benchmark's steady reconciler: read the
// ConfigMap from the cache, write the observed annotation when the shared
// logic says so.
type reconciler struct {
	cache  *informer.Cache[*corev1.ConfigMap]
	client *client.Client[*corev1.ConfigMap]
	logic  *e2e.Logic
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cm, ok := r.cache.Get(req.Namespace, req.Name)
	if !ok {
		r.logic.Observe(nil) // counted; nothing to write
		return reconcile.Result{}, nil
	}
	want, write := r.logic.Observe(cm)
	if !write {
		return reconcile.Result{}, nil
	}
	cm = cm.DeepCopy() // the cache's objects are shared and read-only
	e2e.SetObserved(cm, want)
	_, err := r.client.Update(ctx, cm)
	return reconcile.Result{}, r.logic.Wrote(err)
}
