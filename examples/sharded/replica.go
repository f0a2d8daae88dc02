package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/shard"
)

// defaultHealthAddr is where a replica serves /healthz and /readyz, the
// port deploy.yaml's probes ask.
const defaultHealthAddr = ":8081"

// replicaMain runs one replica until SIGTERM, as a pod of deploy.yaml's
// Deployment does: its identity and the ring's namespace come from the
// downward API ($POD_NAME, $POD_NAMESPACE), its cluster from
// cluster.LoadConfig (in a pod, the service account's).
func replicaMain(args []string) error {
	fs := flag.NewFlagSet("sharded replica", flag.ContinueOnError)
	load := cluster.RegisterFlags(fs)
	identity := fs.String("identity", defaultIdentity(), "this replica's identity in the ring, unique among its live replicas: $POD_NAME, else the hostname")
	ringNamespace := fs.String("ring-namespace", envOr("POD_NAMESPACE", "default"), "the namespace of the ring's Leases, the same for every replica: $POD_NAMESPACE, else default")
	ring := fs.String("ring", "sharded-example", "the ring's name, the same for every replica")
	namespace := fs.String("namespace", "", "manage the ConfigMaps of this namespace only (default: all namespaces)")
	healthAddr := fs.String("health-addr", defaultHealthAddr, "serve /healthz and /readyz here")
	verbosity := fs.Int("v", 0, "log verbosity: 1 logs every annotation written")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	log := logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.Level(-*verbosity)}))
	cfg, err := cluster.LoadConfig(load)
	if err != nil {
		return err
	}
	mgrOpts := []manager.Option{manager.WithHealthAddr(*healthAddr), manager.WithLogger(log)}
	if *namespace != "" {
		mgrOpts = append(mgrOpts, manager.WithNamespace(*namespace))
	}
	// Leader election's timing (lease 15 s, renew deadline 10 s, retry
	// 2 s): a reconcile here takes milliseconds, well within the 5 s the
	// lease leaves beyond the renew deadline.
	rep, err := newReplica(cfg, *ring, *identity,
		[]shard.Option{shard.WithNamespace(*ringNamespace), shard.WithLogger(log.WithName("ring"))}, mgrOpts...)
	if err != nil {
		return err
	}
	log.Info("starting replica", "identity", *identity, "ring", *ring, "ringNamespace", *ringNamespace, "host", cfg.Host)
	if err := rep.mgr.Start(manager.SignalContext(context.Background())); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	return nil
}

// defaultIdentity is $POD_NAME, set from the downward API, or the hostname,
// which in a pod is the pod's name too.
func defaultIdentity() string {
	if name := os.Getenv("POD_NAME"); name != "" {
		return name
	}
	host, _ := os.Hostname()
	return host
}

// envOr is the value of the environment variable name, or def.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
