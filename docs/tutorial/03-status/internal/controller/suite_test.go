package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/docs/tutorial/03-status/api/v1alpha1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestMain shares one control plane (etcd and kube-apiserver) among the
// package's tests, and fails the run if a test leaves goroutines behind.
func TestMain(m *testing.M) { testenv.Main(m) }

// crdDir is where controller-gen writes the CRDs, from this package.
const crdDir = "../../config/crd/bases"

// start runs the operator's controller for t, wired by SetupWithManager
// as main wires it, with a namespace of t's own and the CRDs installed.
func start(t *testing.T) *operatortest.Env {
	t.Helper()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return operatortest.New(t, SetupWithManager,
		operatortest.WithCRDFiles(crdDir),
		operatortest.WithManagerOptions(manager.WithScheme(scheme)))
}

// newSite returns a StaticSite of one page.
func newSite(namespace, name string) *v1alpha1.StaticSite {
	return &v1alpha1.StaticSite{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1alpha1.StaticSiteSpec{
			Domain: name + ".example.com",
			Pages:  map[string]string{"index.html": "<h1>" + name + "</h1>"},
		},
	}
}

// metric returns the value of the counter name whose labels include
// labels, from the manager's registry (what /metrics serves); 0 if there
// is no such series yet.
func metric(t *testing.T, mgr *manager.Manager, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := mgr.Registry().Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
