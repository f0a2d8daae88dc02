package informer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// lastSeen keeps the newest object handlers got per key.
type lastSeen[T object.Object] struct {
	mu   sync.Mutex
	objs map[string]T
}

func (l *lastSeen[T]) handler() informer.Handler[T] {
	l.objs = map[string]T{}
	set := func(obj T) { l.mu.Lock(); l.objs[object.Key(obj)] = obj; l.mu.Unlock() }
	return informer.HandlerFuncs[T]{
		CreateFunc: func(e event.Create[T]) { set(e.Object) },
		UpdateFunc: func(e event.Update[T]) { set(e.ObjectNew) },
		DeleteFunc: func(e event.Delete[T]) { l.mu.Lock(); delete(l.objs, object.FormatKey(e.Key)); l.mu.Unlock() },
	}
}

// watchSynced registers a lastSeen handler on inf, starts f and waits
// until the handler has had the cache's objects. The returned func stops f.
func watchSynced[T object.Object](t *testing.T, ctx context.Context, f *informer.Factory, inf *informer.Informer[T]) (*lastSeen[T], func()) {
	t.Helper()
	seen := &lastSeen[T]{}
	reg, err := inf.AddHandler(seen.handler())
	if err != nil {
		t.Fatal(err)
	}
	stop := startFactory(f, ctx)
	testkit.Eventually(t, 30*time.Second, "handler sync", reg.HasSynced)
	return seen, stop
}

func (l *lastSeen[T]) get(key string) (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	obj, ok := l.objs[key]
	return obj, ok
}

// TestCompactCacheAgainstAPIServer fills a compact cache of ConfigMaps
// over protobuf from a real API server, with more objects than the cache
// keeps decoded, and checks every read against the server and against what
// handlers got; then that updates and deletes reach reads, indexes and a
// generated lister.
func TestCompactCacheAgainstAPIServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, cs := testkit.Env(t), testkit.Clientset(t)
	ns := testkit.Namespace(t, "compact-")
	const n = 300 // more than the recently stored objects a compact cache keeps decoded
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 6 {
		wg.Go(func() {
			for i := w; i < n; i += 6 {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Labels: map[string]string{"app": fmt.Sprintf("a%d", i%4)},
						Annotations: map[string]string{"note": "x"}},
					Data: map[string]string{"k": fmt.Sprint(i)}, BinaryData: map[string][]byte{"b": {byte(i)}},
				}, metav1.CreateOptions{})
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	cfg := rest.CopyConfig(env.Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	// Compact caches are a fast path, the default of a cluster that has
	// them: asked for, whatever STEADY_FAST_PATHS says.
	c, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme), cluster.WithFastPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(c, informer.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Shared: true}))
	if err != nil {
		t.Fatal(err)
	}
	inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if !inf.Cache().Compact() {
		t.Fatal("a factory's cache is not compact by default")
	}
	secrets, err := informer.For[*corev1.Secret](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if secrets.Cache().Compact() {
		t.Fatal("KindOptions.Shared did not keep the kind's cache shared")
	}
	if err := inf.AddIndex("app", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Labels["app"]}, nil }); err != nil {
		t.Fatal(err)
	}
	seen, stop := watchSynced(t, ctx, f, inf)
	defer stop()
	defer cancel()

	live, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range live.Items {
		want := &live.Items[i]
		want.ManagedFields = nil // the factory drops them
		key := object.Key(want)
		got, ok := inf.Cache().GetByKey(key)
		if !ok {
			t.Fatalf("%s not cached", key)
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: cached\n%v\nserver\n%v", key, got, want)
		}
		if handed, _ := seen.get(key); !equality.Semantic.DeepEqual(got, handed) {
			t.Fatalf("%s: cached\n%v\nhandler got\n%v", key, got, handed)
		}
	}

	// Move a0's objects to a4, delete a1's.
	for i := 0; i < n; i += 4 {
		cm, _ := inf.Cache().Get(ns, fmt.Sprintf("cm-%03d", i))
		cm.Labels["app"] = "a4" // a compact cache's read is the caller's to change
		if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, fmt.Sprintf("cm-%03d", i+1), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(app string) int { objs, _ := inf.Cache().ByIndex("app", app); return len(objs) }
	testkit.Eventually(t, 30*time.Second, "updates and deletes in the indexes", func() error {
		if a0, a1, a4 := count("a0"), count("a1"), count("a4"); a0 != 0 || a1 != 0 || a4 != n/4 {
			return fmt.Errorf("a0 %d, a1 %d, a4 %d objects; want 0, 0, %d", a0, a1, a4, n/4)
		}
		return nil
	})
	if got := inf.Cache().Len(); got != n-n/4 {
		t.Fatalf("%d objects cached, want %d", got, n-n/4)
	}
	lister := corev1listers.NewConfigMapLister(inf.Cache().Indexer()).ConfigMaps(ns)
	moved, err := lister.List(labels.SelectorFromSet(labels.Set{"app": "a4"}))
	if err != nil || len(moved) != n/4 {
		t.Fatalf("lister: %d objects labelled a4, %v; want %d", len(moved), err, n/4)
	}
	if _, err := lister.Get("cm-001"); err == nil {
		t.Fatal("lister finds a deleted object")
	}
	cm, err := lister.Get("cm-000")
	if err != nil || cm.Labels["app"] != "a4" || cm.Data["k"] != "0" {
		t.Fatalf("lister Get: %v, %v", cm, err)
	}
}

// TestCompactUnstructuredAgainstAPIServer checks a compact cache of custom
// resources as Unstructured (JSON) against the server.
func TestCompactUnstructuredAgainstAPIServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := testkit.Env(t)
	dyn := dynamic.NewForConfigOrDie(env.Config)
	testkit.InstallCRD(t, widgets.GroupVersion().WithKind("Widget"))
	ns := testkit.Namespace(t, "compact-cr-")
	for i := range 5 {
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.steady.dev/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w%d", i)},
			"spec":     map[string]any{"size": int64(i), "ratio": 0.5, "tags": []any{"a", "b"}, "nested": map[string]any{"on": true}},
		}}
		if _, err := dyn.Resource(widgets).Namespace(ns).Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := newFactory(t, env.Config, clientgoscheme.Scheme)
	inf, err := informer.ForUnstructured(f, widgets.GroupVersion().WithKind("Widget"), ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	defer startFactory(f, ctx)()
	defer cancel()
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if err := inf.WaitForSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	live, err := dyn.Resource(widgets).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(inf.Cache().List()); got != len(live.Items) {
		t.Fatalf("%d widgets cached, %d on the server", got, len(live.Items))
	}
	for i := range live.Items {
		want := &live.Items[i]
		unstructured.RemoveNestedField(want.Object, "metadata", "managedFields")
		got, ok := inf.Cache().Get(ns, want.GetName())
		if !ok || !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: cached\n%v\nserver\n%v", want.GetName(), got, want)
		}
	}
}
