package informer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

var configMapKind = schema.GroupKind{Kind: "ConfigMap"}

// recordKeys is a handler that adds the key of every event it gets to k.
func recordKeys(k *testkit.Keys) informer.Handler[*corev1.ConfigMap] {
	return informer.HandlerFuncs[*corev1.ConfigMap]{
		CreateFunc: func(e event.Create[*corev1.ConfigMap]) { k.Add(object.Key(e.Object)) },
		UpdateFunc: func(e event.Update[*corev1.ConfigMap]) { k.Add(object.Key(e.ObjectNew)) },
		DeleteFunc: func(e event.Delete[*corev1.ConfigMap]) { k.Add(object.FormatKey(e.Key)) },
	}
}

func createConfigMap(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := testkit.Clientset(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// A factory restricted to two namespaces of three hands out one informer
// for "", whose cache and handlers see exactly those two namespaces' objects,
// later ones included, and never the third's.
func TestFactoryCachesExactlyItsNamespaces(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := testkit.Env(t)
	a, b, c := testkit.Namespace(t, "set-a-"), testkit.Namespace(t, "set-b-"), testkit.Namespace(t, "set-c-")
	for _, ns := range []string{a, b, c} {
		createConfigMap(t, ns, "first")
	}
	f := newFactory(t, env.Config, clientgoscheme.Scheme, informer.WithNamespaces(b, a))
	inf, err := informer.For[*corev1.ConfigMap](f, "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := informer.For[*corev1.ConfigMap](f, "", object.Selector{}); again != inf {
		t.Fatal(`For(f, "") twice: two informers`)
	}
	want := []string{a, b}
	slices.Sort(want)
	if got := inf.Namespaces(); !slices.Equal(got, want) {
		t.Fatalf("Namespaces() = %q, want %q", got, want)
	}
	_, err = informer.For[*corev1.ConfigMap](f, c, object.Selector{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", c)) || !strings.Contains(err.Error(), fmt.Sprintf("%q", a)) ||
		!strings.Contains(err.Error(), "WithNamespaces") {
		t.Fatalf("For(f, %q): %v, want an error naming it, the set and the option", c, err)
	}
	seen := &testkit.Keys{}
	reg, err := inf.AddHandler(recordKeys(seen))
	if err != nil {
		t.Fatal(err)
	}
	defer startFactory(f, ctx)()
	defer cancel()
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if err := f.WaitForCacheSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	keys := inf.Cache().ListKeys()
	slices.Sort(keys)
	if wantKeys := []string{want[0] + "/first", want[1] + "/first"}; !slices.Equal(keys, wantKeys) {
		t.Fatalf("cache holds %q, want %q", keys, wantKeys)
	}
	stats := f.Stats()
	if len(stats) != 1 || stats[0].Name != "configmaps/"+want[0]+","+want[1] || stats[0].Objects != 2 || !stats[0].Synced {
		t.Fatalf("Stats = %+v, want one synced informer of 2 objects named after both namespaces", stats)
	}

	createConfigMap(t, c, "late")
	createConfigMap(t, a, "late")
	last := createConfigMap(t, b, "late")
	testkit.Eventually(t, 30*time.Second, "the later objects of both namespaces", func() bool {
		return seen.Has(a+"/late") && seen.Has(b+"/late")
	})
	// The version of an informer of two namespaces is the lesser of its
	// watches'. Namespace a's watch passes b's last write only with a
	// bookmark, which kube-apiserver sends a watch at least once a minute
	// (mostly within a second): under load it can take that minute.
	testkit.Eventually(t, 75*time.Second, "the resourceVersion of the last write", func() bool {
		return atLeast(inf.LastSyncResourceVersion(), last.ResourceVersion)
	})
	if _, ok := inf.Cache().Get(c, "late"); ok || len(seen.InNamespace(c)) > 0 || inf.Cache().Len() != 4 {
		t.Fatalf("namespace %s leaked in: cache %q, events %q", c, inf.Cache().ListKeys(), seen.InNamespace(c))
	}

	// Its last handler gone, the informer of both namespaces is released
	// whole; its successor covers the same two.
	reg.Remove()
	next, err := inf.Current()
	if err != nil || !inf.Released() || next == inf || !slices.Equal(next.Namespaces(), want) {
		t.Fatalf("after the last handler's removal: released %v, successor %v in %q (%v); want a fresh one in %q",
			inf.Released(), next != inf, next.Namespaces(), err, want)
	}
	// A wait of its own: the bookmark above may have used up syncCtx.
	nextCtx, nextCancel := context.WithTimeout(ctx, 30*time.Second)
	defer nextCancel()
	if err := next.WaitForSync(nextCtx); err != nil || next.Cache().Len() != 4 {
		t.Fatalf("the successor holds %d objects (%v), want both namespaces' 4", next.Cache().Len(), err)
	}
}

// WithKind gives a kind namespaces of its own, replacing the factory's,
// and a selector and transform; other kinds keep the factory's.
func TestKindOptionsOverrideTheFactory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := testkit.Env(t)
	a, b, c := testkit.Namespace(t, "kind-a-"), testkit.Namespace(t, "kind-b-"), testkit.Namespace(t, "kind-c-")
	for _, ns := range []string{a, b, c} {
		createConfigMap(t, ns, "mine")
		createConfigMap(t, ns, "other")
	}
	f := newFactory(t, env.Config, clientgoscheme.Scheme, informer.WithNamespaces(a, b),
		informer.WithKind(configMapKind, informer.KindOptions{
			Namespaces: []string{c},
			Selector:   object.Selector{Labels: "app=mine"},
			Transform: func(o object.Object) (object.Object, error) {
				o.SetAnnotations(map[string]string{"transformed": "yes"})
				return o, nil
			},
		}),
		informer.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Namespaces: []string{informer.AllNamespaces}}))
	cms, err := informer.For[*corev1.ConfigMap](f, "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cms.Namespaces(); !slices.Equal(got, []string{c}) {
		t.Fatalf("ConfigMaps cached in %q, want the kind's own %q", got, c)
	}
	if _, err := informer.For[*corev1.ConfigMap](f, a, object.Selector{}); err == nil || !strings.Contains(err.Error(), "WithKind(ConfigMap).Namespaces") {
		t.Fatalf("ConfigMaps in the factory's namespace %s but not the kind's: %v, want an error naming WithKind", a, err)
	}
	secrets, err := informer.For[*corev1.Secret](f, "", object.Selector{})
	if err != nil || secrets.Namespaces() != nil {
		t.Fatalf("Secrets with KindOptions{Namespaces: AllNamespaces}: namespaces %q, %v; want all", secrets.Namespaces(), err)
	}
	sa, err := informer.For[*corev1.ServiceAccount](f, "", object.Selector{})
	if err != nil || len(sa.Namespaces()) != 2 {
		t.Fatalf("ServiceAccounts: namespaces %q, %v; want the factory's two", sa.Namespaces(), err)
	}
	defer startFactory(f, ctx)()
	defer cancel()
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if err := cms.WaitForSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	got, ok := cms.Cache().Get(c, "mine")
	if !ok || cms.Cache().Len() != 1 || got.Annotations["transformed"] != "yes" {
		t.Fatalf("ConfigMap cache %q, %s/mine transformed %v; want only it, transformed", cms.Cache().ListKeys(), c, ok && got.Annotations["transformed"] == "yes")
	}
}

// Options that make no sense are errors of NewFactory naming the option,
// WithName among them: a factory names each informer after its resource.
func TestFactoryRefusesBadCacheOptions(t *testing.T) {
	c, err := cluster.New(&rest.Config{Host: "https://127.0.0.1:1"}, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	secret := schema.GroupKind{Kind: "Secret"}
	for _, tc := range []struct {
		opts []informer.FactoryOption
		want string
	}{
		{[]informer.FactoryOption{informer.WithNamespaces()}, "WithNamespaces(): no namespace"},
		{[]informer.FactoryOption{informer.WithNamespaces("a", "")}, `WithNamespaces("a", ""): empty namespace name`},
		{[]informer.FactoryOption{informer.WithNamespaces("a", "b", "a")}, `namespace "a" given twice`},
		{[]informer.FactoryOption{informer.WithNamespaces("a", informer.AllNamespaces)}, "AllNamespaces beside"},
		{[]informer.FactoryOption{informer.WithNamespace("Not_A_Name")}, `WithNamespace("Not_A_Name"): namespace "Not_A_Name"`},
		{[]informer.FactoryOption{informer.WithKind(secret, informer.KindOptions{}), informer.WithKind(secret, informer.KindOptions{Uncached: true})}, "WithKind(Secret) given twice"},
		{[]informer.FactoryOption{informer.WithKind(secret, informer.KindOptions{Namespaces: []string{"a", "a"}})}, `WithKind(Secret).Namespaces: namespace "a" given twice`},
		{[]informer.FactoryOption{informer.WithKind(secret, informer.KindOptions{Selector: object.Selector{Labels: "a in"}})}, "WithKind(Secret): Selector"},
		{[]informer.FactoryOption{informer.WithKind(schema.GroupKind{Group: "apps"}, informer.KindOptions{})}, "no kind"},
		{[]informer.FactoryOption{informer.WithName("pods")}, `WithName("pods")`},
		{[]informer.FactoryOption{informer.WithName("")}, `WithName("")`},
		{[]informer.FactoryOption{informer.WithClock(nil)}, "WithClock(nil)"},
		{[]informer.FactoryOption{informer.WithCacheSyncTimeout(0)}, "WithCacheSyncTimeout(0s)"},
	} {
		_, err := informer.NewFactory(c, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewFactory: %v, want an error containing %q", err, tc.want)
		}
	}
	f, err := informer.NewFactory(c, informer.WithNamespaces("b", "a"), informer.WithKind(secret, informer.KindOptions{Selector: object.Selector{Labels: "a=b"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Namespaces(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Namespaces() = %q, want them sorted", got)
	}
	if got := f.Kind(secret).Selector.Labels; got != "a=b" {
		t.Errorf("Kind(Secret).Selector = %q, want WithKind's a=b", got)
	}
}
