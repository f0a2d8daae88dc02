package testenv_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadyctl/steady/testenv"
)

func names(crds []*unstructured.Unstructured) string {
	var n []string
	for _, c := range crds {
		n = append(n, c.GetName())
	}
	return strings.Join(n, ",")
}

func TestReadCRDs(t *testing.T) {
	const both = "gadgets.testenv.steady.dev,gizmos.testenv.steady.dev"
	for _, path := range []string{"testdata/crds/bases", "testdata/crds/bases/gadgets.yaml"} {
		crds, err := testenv.ReadCRDs(path)
		if err != nil || names(crds) != both {
			t.Errorf("ReadCRDs(%s): %s, %v; want %s", path, names(crds), err, both)
		}
	}
	for path, want := range map[string]string{
		"testdata/crds/bases/kustomization.yaml": "no CustomResourceDefinition in testdata/crds/bases/kustomization.yaml",
		"testdata/crds/bad/v1beta1.yaml":         "testdata/crds/bad/v1beta1.yaml, document 1: CRD olds.testenv.steady.dev is apiextensions.k8s.io/v1beta1",
		"testdata/crds/bad/broken.yaml":          "testdata/crds/bad/broken.yaml, document 2:",
		"testdata/crds/absent":                   "testdata/crds/absent: no such file",
	} {
		if _, err := testenv.ReadCRDs(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadCRDs(%s): %v; want an error saying %q", path, err, want)
		}
	}
}

// InstallCRDs installs once, however many tests ask at once, serves the
// kinds, and refuses another definition under a name it installed.
func TestInstallCRDs(t *testing.T) {
	env := testenv.Shared(t)
	crds, err := testenv.ReadCRDs("testdata/crds/bases")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = env.InstallCRDs(ctx, crds...) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("InstallCRDs #%d: %v", i, err)
		}
	}
	// Served at once: no wait for discovery here.
	gadgets := schema.GroupVersionResource{Group: "testenv.steady.dev", Version: "v1", Resource: "gadgets"}
	gadget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "testenv.steady.dev/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}}}
	if _, err := dynamic.NewForConfigOrDie(env.Config).Resource(gadgets).Namespace("default").Create(ctx, gadget, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Gadget right after InstallCRDs: %v", err)
	}

	changed := crds[0].DeepCopy()
	if err := unstructured.SetNestedField(changed.Object, "Cluster", "spec", "scope"); err != nil {
		t.Fatal(err)
	}
	if err := env.InstallCRDs(ctx, changed); err == nil || !strings.Contains(err.Error(), "CRD gadgets.testenv.steady.dev: installed before with another spec") {
		t.Errorf("installing a changed CRD: %v, want a refusal naming it", err)
	}
	notCRD := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm"}}}
	unserved := crds[1].DeepCopy()
	unstructured.RemoveNestedField(unserved.Object, "spec", "versions")
	for obj, want := range map[*unstructured.Unstructured]string{
		notCRD:   `"cm" is a v1 ConfigMap, not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
		unserved: "CRD gizmos.testenv.steady.dev: spec.group, spec.names.plural and a served version are required",
	} {
		if err := env.InstallCRDs(ctx, obj); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("InstallCRDs(%s): %v, want an error saying %q", obj.GetName(), err, want)
		}
	}
}

// NewNamespace's namespace is the test's: fresh, and deleted as it ends.
func TestNewNamespace(t *testing.T) {
	env := testenv.Shared(t)
	var a, b string
	t.Run("sub", func(t *testing.T) {
		a, b = env.NewNamespace(t, "nn-"), env.NewNamespace(t, "nn-")
	})
	if a == b || !strings.HasPrefix(a, "nn-") {
		t.Fatalf("namespaces %q and %q: want two distinct ones named nn-…", a, b)
	}
	ns, err := env.Clientset.CoreV1().Namespaces().Get(context.Background(), a, metav1.GetOptions{})
	if err != nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace %s after its test ended: deletionTimestamp %v, %v; want it being deleted", a, ns.DeletionTimestamp, err)
	}
}
