package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/steadyctl/steady/testenv"
)

// applier applies manifests to the test's control plane with server-side
// apply, as kubectl apply --server-side would, and keeps the warnings the
// API server sends back (unknown fields, Pod Security violations).
type applier struct {
	dyn      *dynamic.DynamicClient
	mapper   *restmapper.DeferredDiscoveryRESTMapper
	warnings warningLog
}

// newApplier returns an applier for env, as its admin.
func newApplier(t *testing.T, env *testenv.Environment) *applier {
	t.Helper()
	a := &applier{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &a.warnings
	var err error
	if a.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	a.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(env.Clientset.Discovery()))
	return a
}

// apply applies m; with dryRun, the API server admits and validates it
// (defaults, schema, admission) without storing it.
func (a *applier) apply(ctx context.Context, m manifest, dryRun bool) error {
	gvk := m.obj.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", m, err)
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := m.obj.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault // as kubectl's context without a namespace
		}
		ri = a.dyn.Resource(mapping.Resource).Namespace(ns)
	}
	opts := metav1.ApplyOptions{FieldManager: "scaffold-test", Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, err := ri.Apply(ctx, m.obj.GetName(), m.obj, opts); err != nil {
		return fmt.Errorf("applying %s: %w", m, err)
	}
	return nil
}

// waitServed waits until the API server serves the kinds of ms, such as a
// CRD's just applied.
func (a *applier) waitServed(t *testing.T, ms []manifest) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "the kinds of the manifests to be served", func() error {
		for _, m := range ms {
			gvk := m.obj.GroupVersionKind()
			if _, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
				a.mapper.Reset()
				return err
			}
		}
		return nil
	})
}

// warningLog collects the API server's warnings.
type warningLog struct {
	mu   sync.Mutex
	list []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warningLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// isSetup reports whether m must exist for the others to be applied even
// in a dry run: a namespaced dry run needs its namespace, and a custom
// resource its CRD.
func isSetup(m manifest) bool {
	return slices.Contains([]string{"Namespace", "CustomResourceDefinition"}, m.obj.GetKind())
}

// dryRunManifests applies every manifest of the project in dir (config/
// and samples/) with a server-side dry run, after creating its Namespace
// and CRD for real, and fails on any error or warning.
func dryRunManifests(t *testing.T, p *project, dir string) {
	env := testenv.Shared(t)
	ctx := t.Context()
	config, err := readManifests(dir, "config")
	if err != nil {
		t.Fatal(err)
	}
	samples, err := readManifests(dir, "samples")
	if err != nil {
		t.Fatal(err)
	}
	a := newApplier(t, env)
	kinds := map[string]int{}
	for _, m := range config {
		kinds[m.obj.GetKind()]++
		if isSetup(m) {
			if err := a.apply(ctx, m, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.waitServed(t, samples)
	for _, m := range append(config, samples...) {
		if !isSetup(m) {
			if err := a.apply(ctx, m, true); err != nil {
				t.Error(err)
			}
		}
	}
	if w := a.warnings.take(); len(w) > 0 {
		t.Errorf("the API server warned: %q", w)
	}
	want := map[string]int{"Namespace": 1, "CustomResourceDefinition": 1, "Deployment": 1, "ServiceAccount": 1,
		"ClusterRole": 3, "ClusterRoleBinding": 2, "Role": 1, "RoleBinding": 1, "Service": 1}
	if p.Webhooks {
		want["Service"]++
		want["Role"]++
		want["RoleBinding"]++
		want["ValidatingWebhookConfiguration"] = 1
		want["MutatingWebhookConfiguration"] = 1
	}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("config/ holds %v, want %v", kinds, want)
	}
	t.Logf("%d manifests and %d samples passed a server-side dry run: %v", len(config), len(samples), kinds)
}
