package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/testenv"
)

// Option configures Config and Main.
type Option func(*options)

type options struct {
	load []cluster.LoadOption
	env  []testenv.Option
}

// WithLoad passes options to cluster.Load: the --kubeconfig and --context
// flags Main registers, for one.
func WithLoad(opts ...cluster.LoadOption) Option {
	return func(o *options) { o.load = append(o.load, opts...) }
}

// WithControlPlane passes options to testenv.Start for the local control
// plane, used only when one is started: an example that needs a
// kube-apiserver feature gate asks for it with
// testenv.WithAPIServerFlags. Default: testenv's defaults.
func WithControlPlane(opts ...testenv.Option) Option {
	return func(o *options) { o.env = append(o.env, opts...) }
}

// Config returns the cluster cluster.Load finds in the sources a user names
// on purpose (--kubeconfig and --context, $KUBECONFIG, or the in-cluster
// config when it runs in a pod), or, when it finds none or local is true,
// starts a local control plane and returns a function that stops it. It
// says which on out. ~/.kube/config is not looked at: a demo must not
// create objects in whatever cluster the user last talked to; pass
// --kubeconfig ~/.kube/config to use it.
func Config(ctx context.Context, out io.Writer, local bool, opts ...Option) (cfg *rest.Config, stop func(), err error) {
	cfg, stop, _, err = config(ctx, out, local, opts...)
	return cfg, stop, err
}

// config is Config, and says whether it started a local control plane.
func config(ctx context.Context, out io.Writer, local bool, opts ...Option) (cfg *rest.Config, stop func(), started bool, err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if !local {
		load := append([]cluster.LoadOption{cluster.WithSources(cluster.SourceFlag, cluster.SourceEnv, cluster.SourceInCluster)}, o.load...)
		l, err := cluster.Load(load...)
		if err == nil {
			fmt.Fprintf(out, "using the cluster of %s at %s (-local runs a control plane of its own instead)\n", l, l.Config.Host)
			return l.Config, func() {}, false, nil
		}
		if !errors.Is(err, cluster.ErrNoConfig) {
			// A cluster was named but cannot be used: say so, rather
			// than run somewhere else.
			return nil, nil, false, err
		}
		fmt.Fprintln(out, "no --kubeconfig, $KUBECONFIG or in-cluster config: starting a local control plane (etcd + kube-apiserver)…")
	} else {
		fmt.Fprintln(out, "-local: starting a local control plane (etcd + kube-apiserver)…")
	}
	env, err := testenv.Start(ctx, o.env...)
	if err != nil {
		return nil, nil, false, err
	}
	fmt.Fprintf(out, "local control plane ready at %s\n", env.Config.Host)
	return env.Config, func() { _ = env.Stop() }, true, nil
}

// Main runs an example's main: it parses the command line (--kubeconfig,
// --context, -local), and play gets a context cancelled on SIGINT or
// SIGTERM (which tells Local), a cluster (see Config) and standard output
// safe for concurrent writers. opts are passed to Config, after the flags'
// WithLoad. If play fails, Main prints the error and exits with status 1.
func Main(name string, play func(ctx context.Context, cfg *rest.Config, out io.Writer) error, opts ...Option) {
	load := cluster.RegisterFlags(flag.CommandLine)
	local := flag.Bool("local", false, "start a local control plane even when a cluster config is found")
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := func() error {
		out := LockedWriter(os.Stdout)
		cfg, stop, started, err := config(ctx, out, *local, append([]Option{WithLoad(load)}, opts...)...)
		if err != nil {
			return err
		}
		defer stop()
		return play(context.WithValue(ctx, localKey{}, started), cfg, out)
	}()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

type localKey struct{}

// Local reports whether the cluster Main handed play, with ctx, is a local
// control plane Main started, with -local or because no cluster was named.
// Its API server runs on this machine, so it can call back a server that
// listens on 127.0.0.1 — a webhook — as no other cluster can be assumed to.
func Local(ctx context.Context) bool {
	started, _ := ctx.Value(localKey{}).(bool)
	return started
}

// LockedWriter returns a writer that serialises writes to w, for output
// printed from concurrent reconciles.
func LockedWriter(w io.Writer) io.Writer {
	if l, ok := w.(*lockedWriter); ok {
		return l
	}
	return &lockedWriter{w: w}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Update changes the object name as a person with kubectl would, not as
// the operator: through a clientset's get and write (Update or
// UpdateStatus) functions, retrying on 409 Conflict.
func Update[T runtime.Object](ctx context.Context,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	write func(context.Context, T, metav1.UpdateOptions) (T, error),
	name string, mutate func(T)) (T, error) {
	var out T
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj, err := get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(obj)
		out, err = write(ctx, obj, metav1.UpdateOptions{})
		return err
	})
	return out, err
}
