package controller_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// newFactory returns an informer factory over the shared control plane.
func newFactory(t *testing.T) *informer.Factory {
	t.Helper()
	c, err := cluster.New(testkit.Env(t).Config, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, ns, name string, labels map[string]string, data string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"v": data}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// touchSecret creates or updates the Secret name, for the positive control.
func touchSecret(t *testing.T, cs kubernetes.Interface, ns, name, value string) {
	t.Helper()
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"v": value}}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err == nil {
		return
	}
	if _, err := cs.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// listed reports whether the factory's Stats name an informer.
func listed(f *informer.Factory, name string) bool {
	for _, s := range f.Stats() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// watchedController runs a factory and a controller that watches the
// namespace's Secrets from the start: the positive control of the tests,
// which shows the controller still reconciles while a removed watch's
// objects do not.
func watchedController(t *testing.T, ns string, r reconcile.Reconciler) (*controller.Controller, *informer.Factory) {
	t.Helper()
	f := newFactory(t)
	secrets, err := informer.For[*corev1.Secret](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := controller.New("dynwatch-"+ns, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(controller.Informer(secrets, handler.EnqueueObject[*corev1.Secret]())); err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, f.Start, c.Start)
	return c, f
}

func TestWatchAddedAndRemovedAtRuntime(t *testing.T) {
	ns, cs := testkit.Namespace(t, "dynwatch-"), testkit.Clientset(t)
	ctx := context.Background()
	for i := range 3 {
		createConfigMap(t, cs, ns, fmt.Sprintf("old-%d", i), nil, "x")
	}
	rec := &testkit.Keys{}
	c, f := watchedController(t, ns, rec)
	touchSecret(t, cs, ns, "control", "0")
	testkit.Eventually(t, 30*time.Second, "the Secret watched from the start to reconcile", func() bool { return rec.Count(ns+"/control") > 0 })

	// Added to the running controller: the informer's list and later
	// events reconcile.
	cms, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	src := controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())
	if err := c.Watch(src); err != nil {
		t.Fatalf("Watch after Start: %v", err)
	}
	if err := c.Watch(src); err == nil || !strings.Contains(err.Error(), "already watched") {
		t.Errorf("watching the same source twice: got %v, want an error saying it is already watched", err)
	}
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := informer.WaitForCacheSync(syncCtx, src); err != nil {
		t.Fatalf("waiting for the added source: %v", err)
	}
	testkit.Eventually(t, 30*time.Second, "the existing ConfigMaps to reconcile", func() bool {
		return rec.Count(ns+"/old-0") > 0 && rec.Count(ns+"/old-1") > 0 && rec.Count(ns+"/old-2") > 0
	})
	createConfigMap(t, cs, ns, "new", nil, "x")
	testkit.Eventually(t, 30*time.Second, "a ConfigMap created after Watch to reconcile", func() bool { return rec.Count(ns+"/new") > 0 })

	// Removed: the informer is released and its changes no longer reconcile.
	if err := c.Unwatch(src); err != nil {
		t.Fatalf("Unwatch: %v", err)
	}
	if !cms.Released() {
		t.Error("the ConfigMap informer, whose only handler was removed, is not released")
	}
	if listed(f, "configmaps/"+ns) {
		t.Errorf("Factory.Stats still lists the released informer: %+v", f.Stats())
	}
	if err := cms.WaitForSync(ctx); !errors.Is(err, informer.ErrReleased) || !errors.Is(err, informer.ErrNotSynced) {
		t.Errorf("WaitForSync of a released informer: %v, want ErrReleased and ErrNotSynced", err)
	}
	testkit.Eventually(t, 30*time.Second, "the released informer's cache to be emptied", func() bool { return cms.Cache().Len() == 0 })

	before := rec.Counts()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "old-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = "changed"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, cs, ns, "late", nil, "x")
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "new", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The positive control: changes made after the ConfigMap ones still
	// reconcile, twice over, so the ConfigMaps' silence is not slowness.
	for i, v := range []string{"1", "2"} {
		touchSecret(t, cs, ns, "control", v)
		want := before[ns+"/control"] + i + 1
		testkit.Eventually(t, 30*time.Second, "the still-watched Secret to reconcile", func() bool { return rec.Count(ns+"/control") >= want })
	}
	for _, name := range []string{"old-0", "late", "new"} {
		key := ns + "/" + name
		if got := rec.Count(key); got != before[key] {
			t.Errorf("ConfigMap %s reconciled %d times after Unwatch (before: %d)", name, got-before[key], before[key])
		}
	}

	err = c.Unwatch(src)
	if err == nil || !strings.Contains(err.Error(), "configmaps/"+ns) || !strings.Contains(err.Error(), "not watched") {
		t.Errorf("Unwatch of a source no longer watched: %v, want an error naming configmaps/%s", err, ns)
	}

	// Added again: a fresh informer lists everything again.
	if err := c.Watch(src); err != nil {
		t.Fatalf("Watch again: %v", err)
	}
	fresh, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh == cms {
		t.Fatal("the factory handed out the released informer again")
	}
	if cur, err := cms.Current(); err != nil || cur != fresh {
		t.Errorf("Current of the released informer: %p, %v; want the factory's fresh %p", cur, err, fresh)
	}
	testkit.Eventually(t, 30*time.Second, "the re-added watch to reconcile every ConfigMap again", func() bool {
		return rec.Count(ns+"/late") > 0 && rec.Count(ns+"/old-1") > before[ns+"/old-1"] && rec.Count(ns+"/old-2") > before[ns+"/old-2"]
	})
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

const mib = 1 << 20

// TestUnwatchReleasesTheCache caches 2,000 ConfigMaps through a watch added
// to a running controller, removes the watch, and measures: the informer's
// goroutines end, the factory forgets it, and the heap its cache took is
// freed, although the test still holds the source and the informer.
func TestUnwatchReleasesTheCache(t *testing.T) {
	ns, cs := testkit.Namespace(t, "dynmem-"), testkit.Clientset(t)
	const n, size = 2000, 300
	label := map[string]string{"steady.dev/test": "bulk"}
	names, errs := make(chan int), make(chan error, n)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range names {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bulk-%04d", i), Labels: label},
					Data: map[string]string{"v": strings.Repeat("x", size)}}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		names <- i
	}
	close(names)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("creating the ConfigMaps: %v", err)
	}

	var bulk, control atomic.Int64
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		if strings.HasPrefix(req.Name, "bulk-") {
			bulk.Add(1)
		} else {
			control.Add(1)
		}
		return reconcile.Result{}, nil
	})
	c, f := watchedController(t, ns, r)
	touchSecret(t, cs, ns, "control", "0")
	testkit.Eventually(t, 30*time.Second, "the controller to run", func() bool { return control.Load() > 0 })

	heapBefore, goroutinesBefore := liveHeap(), runtime.NumGoroutine()
	existing := goleak.IgnoreCurrent()

	cms, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{Labels: "steady.dev/test=bulk"})
	if err != nil {
		t.Fatal(err)
	}
	src := controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := informer.WaitForCacheSync(ctx, src); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, time.Minute, "every ConfigMap to reconcile", func() bool { return bulk.Load() >= n })
	if got := cms.Cache().Len(); got != n {
		t.Fatalf("the cache holds %d ConfigMaps, want %d", got, n)
	}
	heapWatching, goroutinesWatching := liveHeap(), runtime.NumGoroutine()

	if err := c.Unwatch(src); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the factory to forget the informer", func() bool { return !listed(f, "configmaps/"+ns) })
	testkit.Eventually(t, 30*time.Second, "the informer's goroutines to end", func() error { return goleak.Find(existing) })
	testkit.Eventually(t, 30*time.Second, "the cache to be emptied", func() bool { return cms.Cache().Len() == 0 })
	heapAfter, goroutinesAfter := liveHeap(), runtime.NumGoroutine()

	cacheSize := int64(heapWatching) - int64(heapBefore)
	freed := int64(heapWatching) - int64(heapAfter)
	t.Logf("%d ConfigMaps with %d bytes of data each: live heap %.2f MiB before the watch, %.2f MiB with it "+
		"(cache %.2f MiB, %d bytes per object), %.2f MiB after Unwatch: %.2f MiB freed (%.0f%% of the cache); goroutines %d, %d, %d",
		n, size, float64(heapBefore)/mib, float64(heapWatching)/mib, float64(cacheSize)/mib, cacheSize/n,
		float64(heapAfter)/mib, float64(freed)/mib, 100*float64(freed)/float64(cacheSize),
		goroutinesBefore, goroutinesWatching, goroutinesAfter)
	if cacheSize < n*size {
		t.Fatalf("the cache took %d bytes, less than its objects' data (%d): the measurement is off", cacheSize, n*size)
	}
	if freed < cacheSize*3/4 {
		t.Errorf("Unwatch freed %d of the cache's %d bytes, want at least three quarters", freed, cacheSize)
	}
	runtime.KeepAlive(src) // held to the end: the release does not depend on the user dropping it
	runtime.KeepAlive(cms)
}
