package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/testkit"
)

// paths records the paths of a config's requests.
type paths struct {
	mu   sync.Mutex
	seen []string
}

func (p *paths) wrap(rt http.RoundTripper) http.RoundTripper {
	return testkit.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		p.mu.Lock()
		p.seen = append(p.seen, r.URL.Path)
		p.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// take returns the paths requested since the last take.
func (p *paths) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := p.seen
	p.seen = nil
	return seen
}

// recordingCluster returns a Cluster of the test environment whose
// requests' paths are recorded.
func recordingCluster(t *testing.T) (*cluster.Cluster, *paths) {
	t.Helper()
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	p := &paths{}
	cfg.Wrap(p.wrap)
	c, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// A kind of a known version is mapped from its group version's discovery
// document alone, read once.
func TestRESTMappingReadsOneGroupVersion(t *testing.T) {
	c, p := recordingCluster(t)
	for _, tc := range []struct {
		gvk      schema.GroupVersionKind
		resource string
		scope    meta.RESTScopeName
		path     string
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "configmaps", meta.RESTScopeNameNamespace, "/api/v1"},
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "namespaces", meta.RESTScopeNameRoot, ""},
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", meta.RESTScopeNameNamespace, ""}, // not pods/status, also of kind Pod
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployments", meta.RESTScopeNameNamespace, "/apis/apps/v1"},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, "daemonsets", meta.RESTScopeNameNamespace, ""},
	} {
		m, err := c.RESTMapping(tc.gvk)
		if err != nil {
			t.Fatalf("%s: %v", tc.gvk, err)
		}
		if m.Resource != tc.gvk.GroupVersion().WithResource(tc.resource) || m.GroupVersionKind != tc.gvk || m.Scope.Name() != tc.scope {
			t.Errorf("%s: mapped to %s (%s, scope %s), want %s scoped %s", tc.gvk, m.Resource, m.GroupVersionKind, m.Scope.Name(), tc.resource, tc.scope)
		}
		var want []string
		if tc.path != "" {
			want = []string{tc.path}
		}
		if got := p.take(); !slices.Equal(got, want) {
			t.Errorf("%s: requested %q, want %q", tc.gvk, got, want)
		}
	}
}

// Subresources are not resources of their kind: apps/v1 lists
// deployments/scale, of kind Scale, and no resource scale.
func TestRESTMappingSkipsSubresources(t *testing.T) {
	c, _ := recordingCluster(t)
	_, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: "apps", Kind: "Scale"}, "v1")
	if !meta.IsNoMatchError(err) {
		t.Fatalf("mapping Scale in apps/v1: %v, want no match", err)
	}
}

// Without a version, the group's preferred version comes first.
func TestRESTMappingPrefersTheGroupsVersion(t *testing.T) {
	c, p := recordingCluster(t)
	hpa := schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}
	m, err := c.RESTMapper().RESTMapping(hpa)
	if err != nil {
		t.Fatal(err)
	}
	if m.Resource != (schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}) {
		t.Errorf("mapped %s to %s, want the preferred autoscaling/v2", hpa, m.Resource)
	}
	if got, want := p.take(), []string{"/apis/autoscaling", "/apis/autoscaling/v2"}; !slices.Equal(got, want) {
		t.Errorf("requested %q, want %q", got, want)
	}
	ms, err := c.RESTMapper().RESTMappings(hpa)
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, m := range ms {
		versions = append(versions, m.Resource.Version)
	}
	if !slices.Equal(versions, []string{"v2", "v1"}) {
		t.Errorf("RESTMappings(%s): versions %q, want v2 then v1", hpa, versions)
	}
}

// An unknown kind, group or version is a no-match error, which names the
// kind through cluster.RESTMapping.
func TestRESTMappingUnknown(t *testing.T) {
	c, _ := recordingCluster(t)
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "Gizmo"},
		{Group: "apps", Version: "v0", Kind: "Deployment"},
		{Group: "nothing.steady.dev", Version: "v1", Kind: "Gizmo"},
	} {
		_, err := c.RESTMapping(gvk)
		if !meta.IsNoMatchError(err) || !strings.Contains(err.Error(), gvk.String()) {
			t.Errorf("mapping %s: %v, want a no-match error naming it", gvk, err)
		}
	}
	if _, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: "nothing.steady.dev", Kind: "Gizmo"}); !meta.IsNoMatchError(err) {
		t.Errorf("mapping a kind of an unserved group without a version: %v, want no match", err)
	}
}

// A kind whose CustomResourceDefinition is installed after its group
// version was read is found: the mapper reads discovery again.
func TestRESTMappingFindsKindsInstalledLater(t *testing.T) {
	c, _ := recordingCluster(t)
	group := fmt.Sprintf("later%d.cluster.steady.dev", time.Now().UnixNano())
	gvk := schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}
	if _, err := c.RESTMapping(gvk); !meta.IsNoMatchError(err) {
		t.Fatalf("before the CRD: %v, want no match", err)
	}
	if err := testkit.Env(t).InstallCRDs(context.Background(), testkit.GadgetCRD(group)); err != nil {
		t.Fatal(err)
	}
	// Discovery may follow the CRD's Established condition by a moment.
	testkit.Eventually(t, 30*time.Second, "the Gadget kind mapped", func() error {
		m, err := c.RESTMapping(gvk)
		if err == nil && m.Resource.Resource != "gadgets" {
			err = fmt.Errorf("mapped to %s", m.Resource)
		}
		return err
	})
}

// Lookups by resource name, with or without group and version, answer from
// every group version.
func TestRESTMapperByResource(t *testing.T) {
	c, _ := recordingCluster(t)
	rm := c.RESTMapper()
	kind, err := rm.KindFor(schema.GroupVersionResource{Resource: "deployments"})
	if err != nil || kind != (schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("KindFor(deployments) = %s, %v; want apps/v1 Deployment", kind, err)
	}
	res, err := rm.ResourceFor(schema.GroupVersionResource{Resource: "configmap"})
	if err != nil || res != (schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}) {
		t.Errorf("ResourceFor(configmap) = %s, %v; want v1 configmaps", res, err)
	}
	kinds, err := rm.KindsFor(schema.GroupVersionResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"})
	if err != nil || len(kinds) != 2 || kinds[0].Version != "v2" || kinds[1].Version != "v1" {
		t.Errorf("KindsFor(horizontalpodautoscalers.autoscaling) = %v, %v; want v2 then v1", kinds, err)
	}
	if s, err := rm.ResourceSingularizer("networkpolicies"); err != nil || s != "networkpolicy" {
		t.Errorf("ResourceSingularizer(networkpolicies) = %q, %v", s, err)
	}
	if _, err := rm.KindFor(schema.GroupVersionResource{Resource: "gizmos"}); !meta.IsNoMatchError(err) {
		t.Errorf("KindFor(gizmos): %v, want no match", err)
	}
}

// Mappings from many goroutines, with Resets among them, agree.
func TestRESTMappingConcurrent(t *testing.T) {
	c, _ := recordingCluster(t)
	gvks := []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"},
		{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "batch", Version: "v1", Kind: "Job"},
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			gvk := gvks[i%len(gvks)]
			for range 5 {
				if m, err := c.RESTMapping(gvk); err != nil || m.GroupVersionKind != gvk {
					t.Errorf("%s: %v, %v", gvk, m, err)
				}
				if i%4 == 0 {
					c.RESTMapper().(meta.ResettableRESTMapper).Reset()
				}
			}
		})
	}
	wg.Wait()
}

// A failed read of discovery is an error naming the request, and is not
// kept: the next mapping reads again.
func TestRESTMappingDoesNotKeepErrors(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1" {
			http.NotFound(w, r)
			return
		}
		if calls.Add(1) == 1 {
			http.Error(w, "etcd is down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get"]}]}`)
	}))
	defer srv.Close()
	c, err := cluster.New(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	if _, err := c.RESTMapping(gvk); err == nil || !strings.Contains(err.Error(), "GET /api/v1") {
		t.Fatalf("first mapping: %v, want the failed GET /api/v1", err)
	}
	if m, err := c.RESTMapping(gvk); err != nil || m.Resource.Resource != "configmaps" {
		t.Fatalf("second mapping: %v, %v; want configmaps", m, err)
	}
}
