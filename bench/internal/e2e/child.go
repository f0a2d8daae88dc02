package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"
)

// Options are a child's flags, the same for both implementations.
type Options struct {
	Kubeconfig string
	Namespace  string
	Kind       Kind   // what the controller reconciles
	Run        string // the run identifier that goes into Desired
	Workers    int    // maximum concurrent reconciles
	// ManagedFields is "default" (the framework's default), "keep" or
	// "drop": whether the cache keeps metadata.managedFields.
	ManagedFields string
	// Profile, if set, is the path prefix of CPU and heap profiles, split
	// at the sync (see profiler).
	Profile string
	// Steady is a comma-separated list of settings only the steady child
	// reads (see that command); "" for its defaults.
	Steady string
	// Protocol is the HTTP version the child's connections offer the API
	// server: "default" (the framework's own choice), "http1" or "http2".
	Protocol string
}

// ValidProtocol reports whether p is a Protocol setting.
func ValidProtocol(p string) bool { return p == "default" || p == "http1" || p == "http2" }

// ProtocolName names the HTTP version p puts both children on, "" for
// "default" (each framework's own).
func ProtocolName(p string) string {
	return map[string]string{"http1": "HTTP/1.1", "http2": "HTTP/2"}[p]
}

// SetProtocol makes cfg's connections offer the API server the HTTP
// versions p names, through the one setting both frameworks respect
// (TLSClientConfig.NextProtos); "default" leaves cfg as it is.
func SetProtocol(cfg *rest.Config, p string) {
	switch p {
	case "http1":
		cfg.NextProtos = []string{"http/1.1"}
	case "http2":
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
}

// Running is a started controller.
type Running struct {
	// Synced reports whether the controller's cache holds the initial list.
	Synced func() bool
	// Done receives the controller's result once it has stopped, after the
	// context given to the StartFunc is done.
	Done <-chan error
}

// StartFunc builds and starts an implementation's controller for o on
// cfg, reconciling through l, and returns without waiting for the sync.
type StartFunc func(ctx context.Context, cfg *rest.Config, o Options, l *Logic) (Running, error)

// Main is the main function of a child: impl names the implementation,
// start starts it. It exits the process.
func Main(impl string, start StartFunc) {
	t0 := time.Now()
	var o Options
	// A flag set of our own: controller-runtime registers flags (such as
	// -kubeconfig) on the global one.
	fs := flag.NewFlagSet(impl, flag.ExitOnError)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster")
	fs.StringVar(&o.Namespace, "namespace", "", "namespace of the objects")
	kind := fs.String("kind", string(KindConfigMap), "configmap or cr: the kind to reconcile")
	fs.StringVar(&o.Run, "run", "", "run identifier")
	fs.IntVar(&o.Workers, "workers", 4, "maximum concurrent reconciles")
	fs.StringVar(&o.ManagedFields, "managed-fields", "default", "default, keep or drop: managedFields in the cache")
	fs.StringVar(&o.Profile, "profile", "", "write CPU and heap profiles to files with this path prefix")
	fs.StringVar(&o.Steady, "steady", "", "settings of the steady child (client, echoes, nogate, nopq, shared, manager)")
	fs.StringVar(&o.Protocol, "protocol", "default", "default, http1 or http2: the HTTP version the child's connections offer")
	_ = fs.Parse(os.Args[1:]) // ExitOnError
	var err error
	if o.Kind, err = ParseKind(*kind); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", impl, err)
		os.Exit(2)
	}
	if o.Kubeconfig == "" || o.Namespace == "" || o.Run == "" || !ValidManagedFields(o.ManagedFields) || !ValidProtocol(o.Protocol) {
		fmt.Fprintln(os.Stderr, "usage: child -kubeconfig path -namespace ns -run id [-kind configmap|cr] [-managed-fields default|keep|drop] [-protocol default|http1|http2]")
		os.Exit(2)
	}
	if err := runChild(t0, impl, o, start); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", impl, err)
		os.Exit(1)
	}
}

func runChild(t0 time.Time, impl string, o Options, start StartFunc) (err error) {
	prof := &profiler{prefix: o.Profile}
	if err := prof.startCPU("sync"); err != nil {
		return err
	}
	defer prof.stopCPU()
	cfg, err := LoadConfig(o.Kubeconfig)
	if err != nil {
		return err
	}
	SetProtocol(cfg, o.Protocol)
	var requests Counter
	cfg.Wrap(requests.Wrap)
	logic := NewLogic(o.Run, t0)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running, err := start(ctx, cfg, o, logic)
	if err != nil {
		return err
	}
	if err := waitSynced(ctx, running, 5*time.Minute); err != nil {
		return err
	}
	synced, syncCPU := time.Since(t0), cpuSeconds()

	out := json.NewEncoder(os.Stdout)
	report := func(phase string, cpu float64, mem Mem) error {
		return out.Encode(Report{
			Impl: impl, Phase: phase, SyncMillis: millis(synced), CPUSeconds: cpu,
			Mem: mem, Counts: logic.Counts(), Requests: requests.Snapshot(),
		})
	}
	if err := prof.stopCPU(); err != nil {
		return err
	}
	mem := ReadMem()
	if err := prof.heap("sync"); err != nil {
		return err
	}
	if err := prof.startCPU("run"); err != nil {
		return err
	}
	if err := report(PhaseSynced, syncCPU, mem); err != nil {
		return err
	}

	// Serve the parent until it closes stdin.
	in := bufio.NewScanner(os.Stdin)
	for n := 1; in.Scan(); {
		if in.Text() != CommandReport {
			continue
		}
		cpu, mem := cpuSeconds(), ReadMem()
		if err := prof.heap(fmt.Sprintf("report%d", n)); err != nil {
			return err
		}
		n++
		if err := report(PhaseReport, cpu, mem); err != nil {
			return err
		}
	}
	cancel()
	select {
	case err := <-running.Done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("controller: %w", err)
		}
	case <-time.After(time.Minute):
		return errors.New("controller did not stop within a minute")
	}
	if err := prof.stopCPU(); err != nil {
		return err
	}
	return report(PhaseFinal, cpuSeconds(), ReadMem())
}

// waitSynced polls r.Synced every millisecond, the same way for both
// implementations, so that neither framework's own wait granularity (some
// poll every 100 ms) enters the measured sync time.
func waitSynced(ctx context.Context, r Running, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !r.Synced() {
		select {
		case <-tick.C:
		case err := <-r.Done:
			return fmt.Errorf("controller stopped before its cache synced: %v", err)
		case <-deadline.C:
			return fmt.Errorf("cache not synced after %v", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// ValidManagedFields reports whether s is a value of Options.ManagedFields.
func ValidManagedFields(s string) bool { return s == "default" || s == "keep" || s == "drop" }
