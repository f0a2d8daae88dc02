package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// A Client sends under its group version's path (/api for the core group,
// /apis otherwise), asks for protobuf with JSON as the fallback, decodes a
// JSON answer into the group version's Go type, and leaves the config it
// was given alone.
func TestClientPathsAndContentTypes(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" accept="+r.Header.Get("Accept"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/v1/"):
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"k":"v"}}`))
		default:
			_, _ = w.Write([]byte(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"ns"},"spec":{"holderIdentity":"me"}}`))
		}
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL}
	hc := srv.Client()

	core, err := New(cfg, hc, corev1.SchemeGroupVersion, corev1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := core.REST.Get().Namespace("ns").Resource("configmaps").Name("c").VersionedParams(&metav1.GetOptions{}, core.Params).Do(context.Background()).Into(cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["k"] != "v" {
		t.Errorf("decoded ConfigMap %+v, want data k=v", cm)
	}
	leases, err := New(cfg, hc, coordinationv1.SchemeGroupVersion, coordinationv1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	l := &coordinationv1.Lease{}
	if err := leases.REST.Get().Namespace("ns").Resource("leases").Name("l").Do(context.Background()).Into(l); err != nil {
		t.Fatal(err)
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "me" {
		t.Errorf("decoded Lease %+v, want holder me", l.Spec)
	}
	want := []string{
		"GET /api/v1/namespaces/ns/configmaps/c accept=" + Accept,
		"GET /apis/coordination.k8s.io/v1/namespaces/ns/leases/l accept=" + Accept,
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if cfg.GroupVersion != nil || cfg.NegotiatedSerializer != nil || cfg.ContentType != "" || cfg.APIPath != "" {
		t.Errorf("New changed the config it was given: %+v", cfg)
	}
}

// A config that names a content type keeps it; the group version's scheme
// is built once per process, and a registration error names the group
// version.
func TestClientOptions(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeJSON}}
	c, err := New(cfg, http.DefaultClient, corev1.SchemeGroupVersion, corev1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.REST.Post().Resource("configmaps").URL().Path; got != "/api/v1/configmaps" {
		t.Errorf("path %q", got)
	}
	a, errA := codecsFor(corev1.SchemeGroupVersion, corev1.AddToScheme)
	b, errB := codecsFor(corev1.SchemeGroupVersion, corev1.AddToScheme)
	if errA != nil || errB != nil || a != b {
		t.Errorf("codecs of core/v1 made twice (%p, %p, %v, %v), want one", a, b, errA, errB)
	}
	gv := coordinationv1.SchemeGroupVersion
	gv.Version = "v0broken"
	_, err = New(cfg, http.DefaultClient, gv, func(*runtime.Scheme) error { return context.Canceled })
	if err == nil || !strings.Contains(err.Error(), "coordination.k8s.io/v0broken") {
		t.Errorf("New with a failing registration: %v, want an error naming the group version", err)
	}
}

// SharedThrottle gives a config with a QPS one rate limiter, refuses a QPS
// without a Burst, and copies other configs as they are.
func TestSharedThrottle(t *testing.T) {
	in := &rest.Config{Host: "h", QPS: 5, Burst: 10}
	out, err := SharedThrottle(in)
	if err != nil || out.RateLimiter == nil || in.RateLimiter != nil {
		t.Errorf("SharedThrottle(QPS 5, Burst 10): limiter %v, error %v; given config's limiter %v", out.RateLimiter, err, in.RateLimiter)
	}
	if _, err := SharedThrottle(&rest.Config{QPS: 5}); err == nil || !strings.Contains(err.Error(), "Burst") {
		t.Errorf("SharedThrottle(QPS 5, no Burst): %v, want an error naming Burst", err)
	}
	if out, err := SharedThrottle(&rest.Config{Host: "h"}); err != nil || out.RateLimiter != nil || out.Host != "h" {
		t.Errorf("SharedThrottle(no QPS): %+v, %v; want a plain copy", out, err)
	}
}
