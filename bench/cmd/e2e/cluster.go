package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/testenv"
)

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
	e2e.Tune(cfg)
	cfg.ContentType = runtime.ContentTypeProtobuf // the load's ConfigMaps; custom resources below
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
