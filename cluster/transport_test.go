package cluster_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/http1"
	"github.com/steadyctl/steady/internal/testkit"
)

// protocols records the protocol of every answer a config's requests get,
// and the requests' User-Agent headers.
type protocols struct {
	mu     sync.Mutex
	seen   []string
	agents []string
}

func (p *protocols) wrap(rt http.RoundTripper) http.RoundTripper {
	return testkit.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil {
			p.mu.Lock()
			p.seen = append(p.seen, resp.Proto)
			p.agents = append(p.agents, r.Header.Get("User-Agent"))
			p.mu.Unlock()
		}
		return resp, err
	})
}

func (p *protocols) all() (protos, agents []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen), slices.Clone(p.agents)
}

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// useEveryClient sends a request through each of c's clients: discovery,
// the typed REST client (a get and a watch), the dynamic and the metadata
// client.
func useEveryClient(t *testing.T, c *cluster.Cluster, ns string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.RESTMapping(corev1.SchemeGroupVersion.WithKind("ConfigMap")); err != nil {
		t.Fatal(err)
	}
	rc, err := c.RESTClientFor(corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.ConfigMapList
	if err := rc.Get().Namespace(ns).Resource("configmaps").Do(ctx).Into(&list); err != nil {
		t.Fatal(err)
	}
	w, err := rc.Get().Namespace(ns).Resource("configmaps").Param("watch", "true").Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if _, err := c.Dynamic().Resource(configMaps).Namespace(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Metadata().Resource(configMaps).Namespace(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

func coreScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Every client of a cluster speaks HTTP/1.1 unless WithHTTP2(true), or a
// config that chooses its protocols itself, and sends client-go's default
// User-Agent.
func TestClientsSpeakHTTP1UnlessTold(t *testing.T) {
	ns := testkit.Namespace(t, "proto")
	for _, tc := range []struct {
		name       string
		nextProtos []string
		opts       []cluster.Option
		want       string
	}{
		{name: "default", want: "HTTP/1.1"},
		{name: "WithHTTP2", opts: []cluster.Option{cluster.WithHTTP2(true)}, want: "HTTP/2.0"},
		{name: "config's NextProtos", nextProtos: []string{"h2"}, want: "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rest.CopyConfig(testkit.Env(t).Config)
			cfg.NextProtos = tc.nextProtos
			p := &protocols{}
			cfg.Wrap(p.wrap)
			c, err := cluster.New(cfg, append(tc.opts, cluster.WithScheme(coreScheme(t)))...)
			if err != nil {
				t.Fatal(err)
			}
			useEveryClient(t, c, ns)
			seen, agents := p.all()
			if len(seen) < 5 {
				t.Fatalf("saw %d answers (%v), want one per request, 5 or more", len(seen), seen)
			}
			for i, proto := range seen {
				if proto != tc.want {
					t.Fatalf("answers came as %v, want all %s", seen, tc.want)
				}
				if agents[i] != rest.DefaultKubernetesUserAgent() {
					t.Fatalf("request %d's User-Agent is %q, want %q", i, agents[i], rest.DefaultKubernetesUserAgent())
				}
			}
		})
	}
}

// countingCluster returns a cluster of the test environment, made with
// opts, whose connections are counted as they are dialled.
func countingCluster(t *testing.T, opts ...cluster.Option) (*cluster.Cluster, *atomic.Int32) {
	t.Helper()
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	dials := new(atomic.Int32)
	cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c, err := cluster.New(cfg, append([]cluster.Option{cluster.WithScheme(coreScheme(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, dials
}

// All of a cluster's clients share one pool of connections: requests made
// one after another through each of them dial once, and an open watch
// holds a connection of its own.
func TestClientsShareConnections(t *testing.T) {
	ns := testkit.Namespace(t, "pool")
	c, dials := countingCluster(t)
	// The plain requests share one connection. The watch in
	// useEveryClient goes through net/http's pool and is stopped before
	// its body is read to the end, which closes its connection: each
	// round's watch dials once more.
	for range 3 {
		useEveryClient(t, c, ns)
	}
	if got := dials.Load(); got > 4 {
		t.Fatalf("%d connections dialled for 3 rounds of requests, want at most 4 (one for the plain requests, one per watch)", got)
	}

	before := dials.Load()
	rc, err := c.RESTClientFor(corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rc.Get().Namespace(ns).Resource("configmaps").Param("watch", "true").Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for range 5 {
		if _, err := c.Metadata().Resource(configMaps).Namespace(ns).List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := dials.Load() - before; got > 2 {
		t.Fatalf("a watch and 5 lists beside it dialled %d connections, want at most 2", got)
	}
}

// A connection the server side closed while it sat idle in the pool (a
// network cut, a load balancer's reset, an API server restarting) is not
// written to: a write after each cut succeeds at the first try, which
// client-go does not repeat for a PUT. A request whose context ends
// while it waits for the answer returns the context's error at once.
// Writes that survive a cut are steady's own transport's, a fast path:
// the cluster asks for it, whatever STEADY_FAST_PATHS says.
func TestWritesSurviveClosedConnections(t *testing.T) {
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "cut")
	c, dials := countingCluster(t, cluster.WithFastPaths(true))
	rc, err := c.RESTClientFor(corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cut", Namespace: ns}}
	if err := rc.Post().Namespace(ns).Resource("configmaps").Body(cm).Do(ctx).Into(cm); err != nil {
		t.Fatal(err)
	}
	put := func(step string) {
		t.Helper()
		cm.Data = map[string]string{"step": step}
		if err := rc.Put().Namespace(ns).Resource("configmaps").Name(cm.Name).Body(cm).Do(ctx).Into(cm); err != nil {
			t.Fatalf("PUT after %s: %v", step, err)
		}
	}
	for i := range 3 {
		before := dials.Load()
		if env.DropConnections() == 0 {
			t.Fatal("no connection to cut")
		}
		put("cut " + strconv.Itoa(i))
		if dials.Load() == before {
			t.Fatal("the PUT after a cut used no new connection: the cut missed the pooled one")
		}
	}
	if err := env.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	put("restart")

	env.SetLatency(2 * time.Second)
	defer env.SetLatency(0)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = rc.Get().Namespace(ns).Resource("configmaps").Name(cm.Name).Do(short).Error()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GET past its deadline: err %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("GET past its 200ms deadline returned after %v", d)
	}
	env.SetLatency(0)
	put("a cancelled request")
}

// The cluster's HTTP client makes plain requests through http1, whose
// pool settings reach client-go's *http.Transport, however client-go
// wraps it (its transport cache does, since v0.37). http1 is a fast path:
// the cluster asks for it, whatever STEADY_FAST_PATHS says.
func TestHTTPClientIsSynchronous(t *testing.T) {
	c, err := cluster.New(rest.CopyConfig(testkit.Env(t).Config), cluster.WithScheme(coreScheme(t)), cluster.WithFastPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	var found *http1.Transport
	rt := c.HTTPClient().Transport
	for range 16 {
		if h, ok := rt.(*http1.Transport); ok {
			found = h
			break
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			break
		}
		rt = w.WrappedRoundTripper()
	}
	if found == nil {
		t.Fatal("no http1.Transport under the cluster's HTTP client")
	}
	base := http1.Base(found)
	if base == nil {
		t.Fatal("no *http.Transport under the http1.Transport")
	}
	if base.MaxIdleConnsPerHost != 100 || base.IdleConnTimeout != 45*time.Second {
		t.Fatalf("client-go's transport keeps %d idle connections per host for %v, want 100 for 45s",
			base.MaxIdleConnsPerHost, base.IdleConnTimeout)
	}
}
