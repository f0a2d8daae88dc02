package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/testenv"
)

// cluster is the parent's view of the API server: the namespace under test
// and a client without a client-side rate limit.
type cluster struct {
	kubeconfig string
	namespace  string
	client     kubernetes.Interface
	names      []string // the seeded ConfigMaps
}

func newCluster(env *testenv.Environment, namespace string) (*cluster, error) {
	cfg := rest.CopyConfig(env.Config)
	e2e.Tune(cfg)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{kubeconfig: env.KubeconfigPath, namespace: namespace, client: client}, nil
}

// seed creates the namespace and n ConfigMaps in it, each with payload
// bytes of filler data, from workers goroutines.
func (c *cluster) seed(ctx context.Context, n, payload, workers int) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", c.namespace, err)
	}
	c.names = make([]string, n)
	for i := range c.names {
		c.names[i] = fmt.Sprintf("cm-%06d", i)
	}
	filler := strings.Repeat("x", payload)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: c.names[i], Labels: map[string]string{"app": "bench-e2e"}},
					Data:       map[string]string{e2e.ValueKey: "0", "filler": filler},
				}
				if _, err := c.client.CoreV1().ConfigMaps(c.namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					cancel(fmt.Errorf("creating %s: %w", cm.Name, err))
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// unconverged lists the ConfigMaps (from the API server's watch cache) and
// counts those a controller of run has not converged yet.
func (c *cluster) unconverged(ctx context.Context, run string) (int, error) {
	list, err := c.client.CoreV1().ConfigMaps(c.namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return 0, err
	}
	if len(list.Items) != len(c.names) {
		return 0, fmt.Errorf("listed %d ConfigMaps, want %d", len(list.Items), len(c.names))
	}
	n := 0
	for i := range list.Items {
		if !e2e.Converged(run, &list.Items[i]) {
			n++
		}
	}
	return n, nil
}

// waitConverged polls until every ConfigMap is converged for run, and
// returns how long that took (to within the poll interval).
func (c *cluster) waitConverged(ctx context.Context, run string, timeout time.Duration) (time.Duration, error) {
	const poll = 500 * time.Millisecond
	start := time.Now()
	deadline := start.Add(timeout)
	lastLog := start
	for {
		n, err := c.unconverged(ctx, run)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return time.Since(start), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d of %d ConfigMaps not converged after %v", n, len(c.names), timeout)
		}
		if time.Since(lastLog) > 5*time.Second {
			logf("  %d of %d ConfigMaps to converge", n, len(c.names))
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(poll):
		}
	}
}
