package informer

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// mustNew is New for tests whose options are valid.
func mustNew[T object.Object](t testing.TB, lw reflector.ListerWatcher, opts ...Option) *Informer[T] {
	t.Helper()
	inf, err := New[T](lw, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return inf
}

// The factory's own options are FactoryOptions and not Options, so that
// New does not compile with one.
func TestFactoryOnlyOptionsAreNotOptions(t *testing.T) {
	for name, opt := range map[string]FactoryOption{
		"WithNamespace":         WithNamespace("a"),
		"WithNamespaces":        WithNamespaces("a"),
		"WithKind":              WithKind(schema.GroupKind{Kind: "Secret"}, KindOptions{}),
		"WithCacheSyncTimeout":  WithCacheSyncTimeout(time.Second),
		"WithKeepManagedFields": WithKeepManagedFields(true),
	} {
		if _, ok := opt.(Option); ok {
			t.Errorf("%s is an Option; want a FactoryOption only", name)
		}
	}
}

// One option list may configure many factories at once (parallel
// managers in one test binary share it): applying an option writes only to
// the options it is applied to, and a caller's slice changed afterwards
// changes nothing. Run under -race.
func TestFactoryOptionsApplyConcurrently(t *testing.T) {
	nss := []string{"a", "b"}
	opts := []FactoryOption{
		WithNamespaces(nss...),
		WithKind(schema.GroupKind{Kind: "ConfigMap"}, KindOptions{Namespaces: nss}),
		WithCacheSyncTimeout(time.Second),
	}
	nss[0] = "changed"
	var wg sync.WaitGroup
	got := make([]*options, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = newFactoryOptions(opts)
			if err := got[i].checkKinds(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, o := range got {
		ko := o.kinds[schema.GroupKind{Kind: "ConfigMap"}]
		if len(ko.Namespaces) != 2 || ko.Namespaces[0] != "a" {
			t.Errorf("factory %d: WithKind namespaces %q; want [a b] as given", i, ko.Namespaces)
		}
		if i > 0 && len(ko.Namespaces) > 0 && &ko.Namespaces[0] == &got[0].kinds[schema.GroupKind{Kind: "ConfigMap"}].Namespaces[0] {
			t.Errorf("factories 0 and %d share WithKind's namespace slice", i)
		}
	}
}

// WithCompact(true) for a type without a compact form (only pointers to
// structs have one) is an error of New naming the type and the option;
// the default keeps decoded objects, silently, and the informer works.
func TestNewCompactWithoutCompactForm(t *testing.T) {
	_, err := New[object.Object](newScriptLW(), WithName("things"), WithCompact(true))
	if err == nil || !strings.Contains(err.Error(), "WithCompact(true)") || !strings.Contains(err.Error(), "object.Object") ||
		!strings.Contains(err.Error(), "things") {
		t.Fatalf("New[object.Object](WithCompact(true)): %v; want an error naming the informer, WithCompact(true) and object.Object", err)
	}

	var mu sync.Mutex
	var logged []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, prefix+" "+args)
	}, funcr.Options{Verbosity: 10})
	lw := newScriptLW(list("1", cmv("a", "1")))
	for _, opts := range [][]Option{{WithLogger(log)}, {WithLogger(log), WithCompact(false)}} {
		inf, err := New[object.Object](lw, opts...)
		if err != nil {
			t.Fatalf("New[object.Object] without WithCompact(true): %v", err)
		}
		if inf.Cache().Compact() {
			t.Fatal("an informer of object.Object has a compact cache")
		}
	}
	mu.Lock()
	if len(logged) > 0 {
		t.Errorf("New logged %q; want nothing", logged)
	}
	mu.Unlock()

	inf := mustNew[object.Object](t, newScriptLW(list("1", cmv("a", "1"))))
	defer runInformer(t, inf)()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Cache().GetByKey("ns/a"); !ok {
		t.Fatalf("cache %q, want ns/a", inf.Cache().ListKeys())
	}
}

// A nil ListerWatcher or clock is an error of New naming it.
func TestNewRefusesNil(t *testing.T) {
	if _, err := New[object.Object](nil, WithName("things")); err == nil || !strings.Contains(err.Error(), "nil ListerWatcher") {
		t.Errorf("New(nil): %v, want an error naming the nil ListerWatcher", err)
	}
	if _, err := New[object.Object](newScriptLW(), WithClock(nil)); err == nil || !strings.Contains(err.Error(), "WithClock(nil)") {
		t.Errorf("New(WithClock(nil)): %v, want an error naming WithClock(nil)", err)
	}
}
