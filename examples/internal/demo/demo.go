package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"

	"github.com/steadyctl/steady/testenv"
)

// Config returns the cluster of $KUBECONFIG, or starts a local one and a
// function that stops it. It says which on out.
func Config(ctx context.Context, out io.Writer) (cfg *rest.Config, stop func(), err error) {
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
	return env.Config, func() { _ = env.Stop() }, nil
}

// Main runs an example's main: play gets a context cancelled on SIGINT or
// SIGTERM, a cluster (see Config) and standard output safe for concurrent
// writers. If play fails, Main prints the error and exits with status 1.
func Main(name string, play func(ctx context.Context, cfg *rest.Config, out io.Writer) error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := func() error {
		out := LockedWriter(os.Stdout)
		cfg, stop, err := Config(ctx, out)
		if err != nil {
			return err
		}
		defer stop()
		return play(ctx, cfg, out)
	}()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
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
