package cluster_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/http1"
	"github.com/steadyctl/steady/internal/testkit"
)

// unreachable is a config for clusters that send no request.
var unreachable = &rest.Config{Host: "https://127.0.0.1:1"}

// Fast paths are on by default; STEADY_FAST_PATHS set to off, false, 0 or
// no (in any case, with spaces around) turns them off for clusters made
// without WithFastPaths, on, true, 1 or yes leaves them on, and off:a,b
// turns off a and b alone; WithFastPaths wins over the variable either
// way, and WithoutFastPaths turns single paths off on top of both.
func TestWithFastPathsDefaultAndEnvironment(t *testing.T) {
	all := cluster.FastPaths
	for _, tc := range []struct {
		env  string
		opts []cluster.Option
		off  []cluster.FastPath
	}{
		{env: ""},
		{env: "off", off: all},
		{env: "false", off: all},
		{env: "0", off: all},
		{env: "no", off: all},
		{env: " OFF\n", off: all},
		{env: "on"},
		{env: "1"},
		{env: "off:http1", off: []cluster.FastPath{cluster.FastHTTP1}},
		{env: "off: compact , cbor", off: []cluster.FastPath{cluster.FastCompact, cluster.FastCBOR}},
		{env: "", opts: []cluster.Option{cluster.WithFastPaths(false)}, off: all},
		{env: "on", opts: []cluster.Option{cluster.WithFastPaths(false)}, off: all},
		{env: "off", opts: []cluster.Option{cluster.WithFastPaths(true)}},
		{env: "off:http1", opts: []cluster.Option{cluster.WithFastPaths(true)}},
		{env: "off", opts: []cluster.Option{cluster.WithFastPaths(false), cluster.WithFastPaths(true)}},
		{env: "", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastProtobuf)}, off: []cluster.FastPath{cluster.FastProtobuf}},
		{env: "off:http1", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastProtobuf)}, off: []cluster.FastPath{cluster.FastHTTP1, cluster.FastProtobuf}},
		{env: "", opts: []cluster.Option{cluster.WithFastPaths(true), cluster.WithoutFastPaths(cluster.FastCBOR)}, off: []cluster.FastPath{cluster.FastCBOR}},
	} {
		t.Setenv(cluster.FastPathsEnv, tc.env)
		c, err := cluster.New(unreachable, append(tc.opts, cluster.WithScheme(coreScheme(t)))...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range all {
			if want := !slices.Contains(tc.off, p); c.FastPath(p) != want {
				t.Errorf("%s=%q, %d options: FastPath(%s) = %v, want %v", cluster.FastPathsEnv, tc.env, len(tc.opts), p, !want, want)
			}
		}
		if want := len(tc.off) == 0; c.FastPaths() != want {
			t.Errorf("%s=%q, %d options: FastPaths() = %v, want %v", cluster.FastPathsEnv, tc.env, len(tc.opts), !want, want)
		}
	}
}

// A value of STEADY_FAST_PATHS that names no setting, or a fast path that
// does not exist, is an error of New naming the variable and what it
// accepts; so is WithoutFastPaths of an unknown path.
func TestFastPathsRefuseUnknownNames(t *testing.T) {
	for _, tc := range []struct {
		env  string
		opts []cluster.Option
		want []string
	}{
		{env: "nonsense", want: []string{`STEADY_FAST_PATHS="nonsense"`, "off:", "http1, protobuf, cbor, compact"}},
		{env: "off:http2", want: []string{`STEADY_FAST_PATHS="off:http2"`, `no fast path "http2"`}},
		{env: "off:", want: []string{`no fast path ""`}},
		{opts: []cluster.Option{cluster.WithoutFastPaths("proto")}, want: []string{"WithoutFastPaths", `no fast path "proto"`}},
		{env: "off", opts: []cluster.Option{cluster.WithFastPaths(true), cluster.WithoutFastPaths("proto")}, want: []string{"WithoutFastPaths", `"proto"`}},
	} {
		t.Setenv(cluster.FastPathsEnv, tc.env)
		_, err := cluster.New(unreachable, append(tc.opts, cluster.WithScheme(coreScheme(t)))...)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s=%q, %d options: New: %v; want an error with %q", cluster.FastPathsEnv, tc.env, len(tc.opts), err, w)
			}
		}
	}
}

// transportLayers walks the round trippers of an HTTP client's transport
// down to net/http's, and reports whether an http1.Transport is among
// them, and the *http.Transport at the bottom (nil if the walk stops
// before one).
func transportLayers(rt http.RoundTripper) (synchronous bool, base *http.Transport) {
	for range 16 {
		switch r := rt.(type) {
		case *http.Transport:
			return synchronous, r
		case *http1.Transport:
			synchronous = true
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			return synchronous, nil
		}
		rt = w.WrappedRoundTripper()
	}
	return synchronous, nil
}

// Without fast paths, the cluster's HTTP client sends through client-go's
// *http.Transport alone, with no http1.Transport above it, whether
// WithFastPaths(false) or the environment says so; its HTTP/1.1 pool is
// set up as with fast paths (100 idle connections per host, closed after
// 45 s, before the API server closes them).
func TestWithoutFastPathsNoSynchronousTransport(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		opts []cluster.Option
		want bool // an http1.Transport
	}{
		{name: "default", want: true},
		{name: "WithFastPaths(false)", opts: []cluster.Option{cluster.WithFastPaths(false)}},
		{name: "environment", env: "off"},
		{name: "environment, WithFastPaths(true)", env: "off", opts: []cluster.Option{cluster.WithFastPaths(true)}, want: true},
		{name: "environment, off:http1", env: "off:http1"},
		{name: "WithoutFastPaths(FastHTTP1)", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastHTTP1)}},
		{name: "WithoutFastPaths(FastCompact)", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastCompact)}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cluster.FastPathsEnv, tc.env)
			c, err := cluster.New(unreachable, append(tc.opts, cluster.WithScheme(coreScheme(t)))...)
			if err != nil {
				t.Fatal(err)
			}
			synchronous, base := transportLayers(c.HTTPClient().Transport)
			if base == nil {
				t.Fatalf("no *http.Transport under the cluster's HTTP client (%T)", c.HTTPClient().Transport)
			}
			if synchronous != tc.want {
				t.Errorf("an http1.Transport under the cluster's HTTP client: %v, want %v", synchronous, tc.want)
			}
			if base.MaxIdleConnsPerHost != 100 || base.IdleConnTimeout != 45*time.Second {
				t.Errorf("client-go's transport keeps %d idle connections per host for %v, want 100 for 45s",
					base.MaxIdleConnsPerHost, base.IdleConnTimeout)
			}
		})
	}
}

// A custom resource's typed client asks for CBOR by default, and for JSON
// without fast paths, even with WithCBOR(true): CBOR and the cut of
// managedFields from its answers are fast paths. The cache's client
// (CacheClientFor, dropping managedFields) asks the same.
func TestWithoutFastPathsNoCBOR(t *testing.T) {
	var mu sync.Mutex
	var accepts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts = append(accepts, r.Header.Get("Accept"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"cluster.steady.dev/v1","kind":"GadgetList","items":[{"metadata":{"name":"g"}}]}`))
	}))
	defer srv.Close()
	const cbor, json = "application/cbor, application/json;q=0.9", "application/json, */*"
	for _, tc := range []struct {
		name string
		opts []cluster.Option
		want string
	}{
		{name: "default", want: cbor},
		{name: "WithFastPaths(false)", opts: []cluster.Option{cluster.WithFastPaths(false)}, want: json},
		{name: "WithFastPaths(false), WithCBOR(true)", opts: []cluster.Option{cluster.WithFastPaths(false), cluster.WithCBOR(true)}, want: json},
		{name: "WithoutFastPaths(FastCBOR)", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastCBOR)}, want: json},
		{name: "WithoutFastPaths(FastHTTP1)", opts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastHTTP1)}, want: cbor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cluster.FastPathsEnv, "")
			c, err := cluster.New(&rest.Config{Host: srv.URL}, append(tc.opts, cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV)))...)
			if err != nil {
				t.Fatal(err)
			}
			typed, err := c.RESTClientFor(gadgetGV)
			if err != nil {
				t.Fatal(err)
			}
			cache, err := c.CacheClientFor(gadgetGV, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, rc := range []rest.Interface{typed, cache} {
				mu.Lock()
				accepts = nil
				mu.Unlock()
				var list gadgetList
				if err := rc.Get().Resource("gadgets").Do(context.Background()).Into(&list); err != nil {
					t.Fatal(err)
				}
				if len(list.Items) != 1 || list.Items[0].Name != "g" {
					t.Fatalf("decoded %+v, want the gadget g", list)
				}
				mu.Lock()
				got := accepts
				mu.Unlock()
				if len(got) != 1 || got[0] != tc.want {
					t.Errorf("requests accepted %q, want %q", got, tc.want)
				}
			}
		})
	}
	// Protobuf for the built-in kinds is apimachinery's serializer either
	// way: ProtobufFor does not depend on fast paths.
	c, err := cluster.New(unreachable, cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV)), cluster.WithFastPaths(false))
	if err != nil {
		t.Fatal(err)
	}
	if !c.ProtobufFor(configMaps.GroupVersion()) {
		t.Error("ProtobufFor(v1) is false without fast paths")
	}
}
