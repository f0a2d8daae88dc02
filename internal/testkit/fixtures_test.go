package testkit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/reconcile"
)

// Keys records what it reconciles and what it is given, in order, and
// answers by key and by namespace.
func TestKeys(t *testing.T) {
	var k Keys
	for _, name := range []string{"a", "b", "a"} {
		if res, err := k.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}); err != nil || res != (reconcile.Result{}) {
			t.Fatalf("Reconcile: %v, %v", res, err)
		}
	}
	k.Add("other/c")
	k.Add("cluster-scoped")
	if got, want := k.All(), []string{"ns/a", "ns/b", "ns/a", "other/c", "cluster-scoped"}; !slices.Equal(got, want) {
		t.Fatalf("All = %q, want %q", got, want)
	}
	if k.Len() != 5 || k.Distinct() != 4 || k.Count("ns/a") != 2 || !k.Has("other/c") || k.Has("ns/c") {
		t.Fatalf("Len %d, Distinct %d, Count(ns/a) %d, Has(other/c) %v, Has(ns/c) %v", k.Len(), k.Distinct(), k.Count("ns/a"), k.Has("other/c"), k.Has("ns/c"))
	}
	if got, want := k.InNamespace("ns"), []string{"ns/a", "ns/b", "ns/a"}; !slices.Equal(got, want) {
		t.Fatalf("InNamespace(ns) = %q, want %q", got, want)
	}
	if got, want := k.Counts(), map[string]int{"ns/a": 2, "ns/b": 1, "other/c": 1, "cluster-scoped": 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Counts = %v, want %v", got, want)
	}
}

// Run runs its functions until the test ends and waits for them; an
// error one returns fails the test.
func TestRun(t *testing.T) {
	stopped := make(chan struct{}, 2)
	ft := &recordingTB{TB: t}
	t.Run("inner", func(t *testing.T) {
		ft.TB = t
		block := func(ctx context.Context) error { <-ctx.Done(); stopped <- struct{}{}; return nil }
		fail := func(ctx context.Context) error { <-ctx.Done(); stopped <- struct{}{}; return errors.New("boom") }
		Run(ft, block, fail)
	})
	if len(stopped) != 2 {
		t.Fatalf("%d of 2 functions had returned when the test ended", len(stopped))
	}
	if !slices.Equal(ft.errors, []string{"run: boom"}) {
		t.Fatalf("errors %q, want run: boom", ft.errors)
	}
}

// recordingTB keeps the errors it is given instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// CRD names the resource after the kind; GadgetCRD and GadgetScheme are
// CRD and Scheme of Gadget.
func TestCRD(t *testing.T) {
	crd := CRD(schema.GroupVersionKind{Group: "x.steady.dev", Version: "v2", Kind: "Widget"})
	if crd.GetName() != "widgets.x.steady.dev" {
		t.Fatalf("name %q", crd.GetName())
	}
	if !reflect.DeepEqual(GadgetCRD("x.steady.dev"), CRD(schema.GroupVersionKind{Group: "x.steady.dev", Version: "v1", Kind: "Gadget"})) {
		t.Fatal("GadgetCRD is not CRD of Gadget in v1")
	}
	gv := schema.GroupVersion{Group: "x.steady.dev", Version: "v1"}
	s := GadgetScheme(t, gv)
	if !s.Recognizes(gv.WithKind("Gadget")) || !s.Recognizes(gv.WithKind("GadgetList")) || !s.Recognizes(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
		t.Fatal("GadgetScheme lacks Gadget, GadgetList or the built-in kinds")
	}
}
