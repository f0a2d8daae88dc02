package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/testenv"
)

// listPage is the page size of the parent's convergence LISTs: one page up
// to 10,000 objects, and at 100,000 the API server never builds a response
// of them all at once.
const listPage = 10000

// cluster is the parent's view of the API server: the namespace under test,
// the kind of its objects, and clients without a client-side rate limit.
type cluster struct {
	kubeconfig string
	namespace  string
	kind       e2e.Kind
	client     kubernetes.Interface
	objects    rest.Interface // REST client of kind's group version
	params     runtime.ParameterCodec
	page       int64    // LIST page size, listPage
	names      []string // the seeded objects
}

func newCluster(env *testenv.Environment, namespace string, kind e2e.Kind) (*cluster, error) {
	cfg := rest.CopyConfig(env.Config)
	e2e.Tune(cfg, kind)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := &cluster{kubeconfig: env.KubeconfigPath, namespace: namespace, kind: kind, client: client,
		objects: client.CoreV1().RESTClient(), params: runtime.NewParameterCodec(kind.Scheme()), page: listPage}
	if kind == e2e.KindCR {
		// The typed REST client client-gen would generate for Widget.
		gv := v1alpha1.SchemeGroupVersion
		cfg.GroupVersion, cfg.APIPath = &gv, "/apis"
		cfg.ContentType = runtime.ContentTypeJSON
		cfg.NegotiatedSerializer = serializer.NewCodecFactory(kind.Scheme()).WithoutConversion()
		if c.objects, err = rest.RESTClientFor(cfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// createNamespace creates the namespace under test.
func (c *cluster) createNamespace(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", c.namespace, err)
	}
	return nil
}

// seed creates n objects in the namespace, each with payload bytes of
// filler data, from workers goroutines.
func (c *cluster) seed(ctx context.Context, n, payload, workers int) error {
	c.names = make([]string, n)
	prefix := "cm-"
	if c.kind == e2e.KindCR {
		prefix = "w-"
	}
	for i := range c.names {
		c.names[i] = fmt.Sprintf("%s%06d", prefix, i)
	}
	filler := strings.Repeat("x", payload)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				obj := c.kind.NewObject(c.namespace, c.names[i], map[string]string{e2e.ValueKey: "0", "filler": filler})
				err := c.objects.Post().Namespace(c.namespace).Resource(c.kind.Resource()).Body(obj).Do(ctx).Error()
				if err != nil {
					cancel(fmt.Errorf("creating %s %s: %w", c.kind.Resource(), c.names[i], err))
				}
				if d := done.Add(1); d%20000 == 0 {
					logf("  created %d of %d %s", d, n, c.kind.Plural())
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// unconverged lists the objects, from the API server's watch cache and in
// pages where it serves them so, and counts those a controller of run has
// not converged yet.
func (c *cluster) unconverged(ctx context.Context, run string) (int, error) {
	listed, n := 0, 0
	opts := metav1.ListOptions{ResourceVersion: "0", Limit: c.page}
	for {
		list := c.kind.NewList()
		err := c.objects.Get().Namespace(c.namespace).Resource(c.kind.Resource()).
			VersionedParams(&opts, c.params).Do(ctx).Into(list)
		if err != nil {
			return 0, err
		}
		err = meta.EachListItem(list, func(obj runtime.Object) error {
			listed++
			if !e2e.Converged(run, obj.(metav1.Object)) {
				n++
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return 0, err
		}
		if opts.Continue = lm.GetContinue(); opts.Continue == "" {
			break
		}
		opts.ResourceVersion = "" // the continue token carries it
	}
	if listed != len(c.names) {
		return 0, fmt.Errorf("listed %d %s, want %d", listed, c.kind.Plural(), len(c.names))
	}
	return n, nil
}

// waitConverged polls until every object is converged for run, and returns
// how long that took (to within the poll interval). It polls every 500 ms,
// or twice as long as the last LIST took if that is longer, so that the
// parent's LISTs of many objects use at most a third of a core.
func (c *cluster) waitConverged(ctx context.Context, run string, timeout time.Duration) (time.Duration, error) {
	const minPoll = 500 * time.Millisecond
	start := time.Now()
	deadline := start.Add(timeout)
	lastLog := start
	for {
		listStart := time.Now()
		n, err := c.unconverged(ctx, run)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return time.Since(start), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d of %d %s not converged after %v", n, len(c.names), c.kind.Plural(), timeout)
		}
		if time.Since(lastLog) > 5*time.Second {
			logf("  %d of %d %s to converge", n, len(c.names), c.kind.Plural())
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(max(minPoll, 2*time.Since(listStart))):
		}
	}
}
