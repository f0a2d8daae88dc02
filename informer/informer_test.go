package informer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// scriptLW serves scripted lists (of any kind) in order; every Watch gets a
// fresh fake watcher the test can drive through watchers.
type scriptLW struct {
	mu       sync.Mutex
	lists    []runtime.Object
	watchers chan *watch.FakeWatcher
}

func newScriptLW(lists ...runtime.Object) *scriptLW {
	return &scriptLW{lists: lists, watchers: make(chan *watch.FakeWatcher, 10)}
}

func (l *scriptLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lists) == 0 {
		return nil, errors.New("no more lists")
	}
	next := l.lists[0]
	l.lists = l.lists[1:]
	return next, nil
}

func (l *scriptLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(100, false)
	l.watchers <- w
	return w, nil
}

func (l *scriptLW) nextWatch(t *testing.T) *watch.FakeWatcher {
	t.Helper()
	select {
	case w := <-l.watchers:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("informer never watched")
		return nil
	}
}

func list(rv string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, c := range items {
		l.Items = append(l.Items, *c)
	}
	return l
}

func runInformer[T object.Object](t *testing.T, inf *Informer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

func has(r *recorder, event string) func() bool {
	return func() bool {
		for _, e := range r.seen() {
			if e == event {
				return true
			}
		}
		return false
	}
}

func TestInitialListThenEventsInOrder(t *testing.T) {
	forCacheModes(t, testInitialListThenEventsInOrder)
}

func testInitialListThenEventsInOrder(t *testing.T, mode cacheMode) {
	lw := newScriptLW(list("10", cmv("a", "1"), cmv("b", "2")))
	inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt(), WithName("configmaps"))
	rec := &recorder{}
	reg, err := inf.AddHandler(rec)
	if err != nil {
		t.Fatal(err)
	}
	stop := runInformer(t, inf)
	defer stop()
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "handler sync", reg.HasSynced)
	if !inf.HasSynced() {
		t.Fatal("handler synced before the informer")
	}
	w.Modify(cmv("a", "11"))
	w.Delete(cmv("b", "12"))
	w.Add(cmv("c", "13"))
	testkit.Eventually(t, 10*time.Second, "create of c", has(rec, "create c 13 false"))
	got := strings.Join(rec.seen(), "|")
	// Initial creates may come in either order; everything after in watch order.
	for _, want := range []string{"create a 1 true", "create b 2 true", "update a 1->11", "delete ns/b unknown=false"} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in %s", want, got)
		}
	}
	if strings.Index(got, "update a") < strings.Index(got, "create a") || strings.Index(got, "delete ns/b") < strings.Index(got, "create b") {
		t.Fatalf("per-key order broken: %s", got)
	}
	if c, ok := inf.Cache().Get("ns", "c"); !ok || c.ResourceVersion != "13" {
		t.Fatalf("cache lacks c: %v", c)
	}
	if _, ok := inf.Cache().Get("ns", "b"); ok {
		t.Fatal("deleted b still cached")
	}
}

func TestRelistDeliversTombstonesWithLastState(t *testing.T) {
	forCacheModes(t, testRelistDeliversTombstonesWithLastState)
}

func testRelistDeliversTombstonesWithLastState(t *testing.T, mode cacheMode) {
	lw := newScriptLW(list("10", cmv("a", "1"), cmv("b", "2")), list("30", cmv("a", "20")))
	inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt())
	var mu sync.Mutex
	var deletes []event.Delete[*corev1.ConfigMap]
	reg, _ := inf.AddHandler(HandlerFuncs[*corev1.ConfigMap]{DeleteFunc: func(d event.Delete[*corev1.ConfigMap]) {
		mu.Lock()
		deletes = append(deletes, d)
		mu.Unlock()
	}})
	stop := runInformer(t, inf)
	defer stop()
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "sync", reg.HasSynced)
	w.Error(&apierrors.NewResourceExpired("too old").ErrStatus) // relist: b is gone
	lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "tombstone", func() bool { mu.Lock(); defer mu.Unlock(); return len(deletes) == 1 })
	d := deletes[0]
	if d.Key != (types.NamespacedName{Namespace: "ns", Name: "b"}) || !d.DeleteStateUnknown || d.Object == nil || d.Object.ResourceVersion != "2" {
		t.Fatalf("tombstone: %+v", d)
	}
	if a, _ := inf.Cache().Get("ns", "a"); a.ResourceVersion != "20" {
		t.Fatalf("a after relist: %s", a.ResourceVersion)
	}
}

// TestDeleteCarriesNamespacedNameKey checks that every delete names its
// object as a types.NamespacedName, for namespaced and cluster-scoped kinds,
// whether a watch reported it or a relist found the object gone.
func TestDeleteCarriesNamespacedNameKey(t *testing.T) {
	forCacheModes(t, testDeleteCarriesNamespacedNameKey)
}

func testDeleteCarriesNamespacedNameKey(t *testing.T, mode cacheMode) {
	t.Run("namespaced", func(t *testing.T) {
		checkDeleteKeys(t, mode, list("10", cmv("a", "1"), cmv("b", "2")), list("30"), cmv("a", "11"),
			types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"})
	})
	t.Run("cluster-scoped", func(t *testing.T) {
		nsv := func(name, rv string) corev1.Namespace {
			return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
		}
		first := &corev1.NamespaceList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Namespace{nsv("a", "1"), nsv("b", "2")}}
		second := &corev1.NamespaceList{ListMeta: metav1.ListMeta{ResourceVersion: "30"}}
		gone := nsv("a", "11")
		checkDeleteKeys(t, mode, first, second, &gone, types.NamespacedName{Name: "a"}, types.NamespacedName{Name: "b"})
	})
}

// checkDeleteKeys runs an informer over first (objects a and b), deletes a
// through the watch (watched is its final state), then forces a relist to
// second, which lacks b.
func checkDeleteKeys[T object.Object](t *testing.T, mode cacheMode, first, second runtime.Object, watched T, wantA, wantB types.NamespacedName) {
	lw := newScriptLW(first, second)
	inf := mustNew[T](t, lw, mode.opt())
	var mu sync.Mutex
	var deletes []event.Delete[T]
	reg, _ := inf.AddHandler(HandlerFuncs[T]{DeleteFunc: func(d event.Delete[T]) {
		mu.Lock()
		deletes = append(deletes, d)
		mu.Unlock()
	}})
	got := func(n int) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return len(deletes) == n }
	}
	stop := runInformer(t, inf)
	defer stop()
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "sync", reg.HasSynced)

	w.Delete(watched)
	testkit.Eventually(t, 10*time.Second, "the watched delete", got(1))
	if d := deletes[0]; d.Key != wantA || d.DeleteStateUnknown || d.Object.GetResourceVersion() != "11" {
		t.Errorf("watched delete: key %#v, unknown %v, resourceVersion %q; want key %#v with the final state (11)",
			d.Key, d.DeleteStateUnknown, d.Object.GetResourceVersion(), wantA)
	}

	w.Error(&apierrors.NewResourceExpired("too old").ErrStatus) // relist: b is gone
	lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "the relist's delete", got(2))
	if d := deletes[1]; d.Key != wantB || !d.DeleteStateUnknown || d.Object.GetName() != "b" || d.Object.GetResourceVersion() != "2" {
		t.Errorf("relist delete: key %#v, unknown %v, object %s at %q; want key %#v, unknown, last cached state b at 2",
			d.Key, d.DeleteStateUnknown, object.Key(d.Object), d.Object.GetResourceVersion(), wantB)
	}
}

func TestLateAndRemovedHandlers(t *testing.T) { forCacheModes(t, testLateAndRemovedHandlers) }

func testLateAndRemovedHandlers(t *testing.T, mode cacheMode) {
	lw := newScriptLW(list("10", cmv("a", "1")))
	inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt())
	stop := runInformer(t, inf)
	defer stop()
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "informer sync", inf.HasSynced)

	late := &recorder{}
	reg, err := inf.AddHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "late handler sync", reg.HasSynced)
	testkit.Eventually(t, 10*time.Second, "synthetic create", has(late, "create a 1 true"))

	reg.Remove()
	other := &recorder{}
	otherReg, _ := inf.AddHandler(other)
	testkit.Eventually(t, 10*time.Second, "other sync", otherReg.HasSynced)
	w.Modify(cmv("a", "2"))
	testkit.Eventually(t, 10*time.Second, "other sees update", has(other, "update a 1->2"))
	if n := len(late.seen()); n != 1 {
		t.Fatalf("removed handler got %d events: %v", n, late.seen())
	}
}

func TestSlowHandlerDoesNotDelayOthers(t *testing.T) {
	lw := newScriptLW(list("10"))
	inf := mustNew[*corev1.ConfigMap](t, lw)
	stuck := &recorder{gate: make(chan struct{})}
	fast := &recorder{}
	_, _ = inf.AddHandler(stuck)
	_, _ = inf.AddHandler(fast)
	stop := runInformer(t, inf)
	w := lw.nextWatch(t)
	for i := range 1000 {
		w.Add(cmv(fmt.Sprintf("o%d", i), fmt.Sprint(100+i)))
	}
	testkit.Eventually(t, 10*time.Second, "fast handler to see all 1000 while the other is stuck", func() bool { return len(fast.seen()) == 1000 })
	if n := len(stuck.seen()); n != 0 {
		t.Fatalf("stuck handler progressed: %d", n)
	}
	close(stuck.gate) // let it drain so Run can stop
	testkit.Eventually(t, 10*time.Second, "stuck handler to catch up", func() bool { return len(stuck.seen()) == 1000 })
	stop()
}

func TestTransformAndPanickingHandler(t *testing.T) {
	forCacheModes(t, testTransformAndPanickingHandler)
}

func testTransformAndPanickingHandler(t *testing.T, mode cacheMode) {
	withFields := cmv("a", "1")
	withFields.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	lw := newScriptLW(list("10", withFields))
	inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt())
	if err := inf.SetTransform(DropManagedFields[*corev1.ConfigMap]); err != nil {
		t.Fatal(err)
	}
	_, _ = inf.AddHandler(HandlerFuncs[*corev1.ConfigMap]{CreateFunc: func(event.Create[*corev1.ConfigMap]) { panic("bad handler") }})
	good := &recorder{}
	reg, _ := inf.AddHandler(good)
	stop := runInformer(t, inf)
	defer stop()
	w := lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "sync", reg.HasSynced)
	w.Add(cmv("b", "2"))
	testkit.Eventually(t, 10*time.Second, "events after a panic elsewhere", has(good, "create b 2 false"))
	if a, _ := inf.Cache().Get("ns", "a"); a.ManagedFields != nil {
		t.Fatal("transform not applied before caching")
	}
	if err := inf.SetTransform(DropManagedFields[*corev1.ConfigMap]); err == nil {
		t.Fatal("SetTransform after Run accepted")
	}
}

func TestWaitForCacheSyncNamesTheLaggard(t *testing.T) {
	never := mustNew[*corev1.ConfigMap](t, newScriptLW(), WithName("secrets-that-never-list"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := WaitForCacheSync(ctx, never)
	if !errors.Is(err, ErrNotSynced) || !strings.Contains(err.Error(), "secrets-that-never-list") {
		t.Fatalf("got %v", err)
	}
}

func TestPerHandlerResync(t *testing.T) { forCacheModes(t, testPerHandlerResync) }

func testPerHandlerResync(t *testing.T, mode cacheMode) {
	clk := clocktesting.NewFakeClock(time.Now())
	lw := newScriptLW(list("10", cmv("a", "1")))
	inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt(), WithClock(clk))
	resynced, plain := &recorder{}, &recorder{}
	regR, _ := inf.AddHandler(resynced, ResyncPeriod(time.Minute))
	regP, _ := inf.AddHandler(plain)
	if _, err := inf.AddHandler(plain, ResyncPeriod(-time.Second)); err == nil {
		t.Fatal("a negative resync period was accepted")
	}
	stop := runInformer(t, inf)
	defer stop()
	lw.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "sync", func() bool { return regR.HasSynced() && regP.HasSynced() })
	testkit.Eventually(t, 10*time.Second, "the resync ticker", clk.HasWaiters)
	clk.Step(time.Minute)
	testkit.Eventually(t, 10*time.Second, "a resync update", has(resynced, "update a 1->1"))
	if n := len(plain.seen()); n != 1 {
		t.Fatalf("a handler without a resync period got %v", plain.seen())
	}
}
