package informer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

func cmIn(ns, name, rv string) *corev1.ConfigMap {
	c := cmv(name, rv)
	c.Namespace = ns
	return c
}

// An informer of two namespaces has synced once both have listed: while
// one is refused, the informer and its handlers have not, and the reason
// names that namespace. Its resourceVersion is the smaller of the two.
func TestNamespacesSyncTogether(t *testing.T) {
	lwA := newScriptLW(list("5", cmIn("a", "x", "4")))
	lwB := &failingLW{err: apierrors.NewForbidden(secrets, "", errors.New(`cannot list resource "configmaps" in the namespace "b"`))}
	inf := newFed[*corev1.ConfigMap]([]string{"a", "b"}, []reflector.ListerWatcher{lwA, lwB},
		[]Option{WithName("configmaps/a,b"), fastRetries()})
	rec := &recorder{}
	reg, err := inf.AddHandler(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer runInformer(t, inf)()
	wA := lwA.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "namespace a listed", func() bool { _, ok := inf.Cache().Get("a", "x"); return ok })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = inf.WaitForSync(ctx)
	if !errors.Is(err, ErrNotSynced) || !strings.Contains(err.Error(), `namespace "b"`) || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("WaitForSync with namespace b refused: %v, want the reason naming b", err)
	}
	if inf.HasSynced() || reg.HasSynced() || inf.LastSyncResourceVersion() != "" {
		t.Fatalf("synced %v, handler synced %v, resourceVersion %q with one namespace unlisted",
			inf.HasSynced(), reg.HasSynced(), inf.LastSyncResourceVersion())
	}
	if err := inf.SyncError(); err == nil || !strings.Contains(err.Error(), `namespace "b"`) {
		t.Fatalf("SyncError = %v, want one naming namespace b", err)
	}

	lwB.ok.Store(true) // b lists at 7
	testkit.Eventually(t, 10*time.Second, "informer and handler synced", func() bool { return inf.HasSynced() && reg.HasSynced() })
	if got := inf.LastSyncResourceVersion(); got != "5" {
		t.Fatalf("LastSyncResourceVersion = %q after lists at 5 and 7, want the smaller", got)
	}
	wA.Add(cmIn("a", "y", "9"))
	testkit.Eventually(t, 10*time.Second, "the resourceVersion of b's list", func() bool { return inf.LastSyncResourceVersion() == "7" })
	if inf.SyncError() != nil {
		t.Fatalf("SyncError = %v once synced", inf.SyncError())
	}
}

// A relist of one namespace (its watch expired: 410 Gone) deletes what
// that namespace's list lacks, and nothing of the other namespace's, whose
// list lacks everything of the first.
func TestRelistOfOneNamespaceKeepsTheOthers(t *testing.T) {
	lwA := newScriptLW(list("10", cmIn("a", "x", "3"), cmIn("a", "y", "4")), list("20", cmIn("a", "x", "15"), cmIn("a", "z", "16")))
	lwB := newScriptLW(list("11", cmIn("b", "x", "5"), cmIn("b", "y", "6")))
	inf := newFed[*corev1.ConfigMap]([]string{"a", "b"}, []reflector.ListerWatcher{lwA, lwB},
		[]Option{WithName("configmaps/a,b"), fastRetries()})
	rec := &recorder{}
	if _, err := inf.AddHandler(rec); err != nil {
		t.Fatal(err)
	}
	defer runInformer(t, inf)()
	wA, _ := lwA.nextWatch(t), lwB.nextWatch(t)
	testkit.Eventually(t, 10*time.Second, "sync", inf.HasSynced)

	wA.Error(&apierrors.NewResourceExpired("too old resource version: 10 (12)").ErrStatus)
	testkit.Eventually(t, 10*time.Second, "a relisted", has(rec, "create z 16 false"))
	for _, want := range []string{"update x 3->15", "delete a/y unknown=true"} {
		if !slices.Contains(rec.seen(), want) {
			t.Errorf("events %q lack %q", rec.seen(), want)
		}
	}
	for _, e := range rec.seen() {
		if strings.HasPrefix(e, "delete b/") {
			t.Errorf("namespace a's relist deleted b's objects: %q", rec.seen())
		}
	}
	keys := inf.Cache().ListKeys()
	slices.Sort(keys)
	if want := []string{"a/x", "a/z", "b/x", "b/y"}; !slices.Equal(keys, want) {
		t.Fatalf("cache holds %q, want %q", keys, want)
	}
}

// heldLW passes List and Watch to a real ListerWatcher, except while held,
// when they wait: a client cut off from the API server. hold also ends the
// watch it handed out last, for certain: a dropped connection alone may
// leave a stream delivering for a while. It counts lists, and the calls
// waiting at the gate.
type heldLW struct {
	lw      reflector.ListerWatcher
	lists   atomic.Int32
	waiting atomic.Int32
	mu      sync.Mutex
	gate    chan struct{} // closed: not held
	watch   watch.Interface
}

func newHeldLW(lw reflector.ListerWatcher) *heldLW {
	h := &heldLW{lw: lw, gate: make(chan struct{})}
	close(h.gate)
	return h
}

func (h *heldLW) hold() {
	h.mu.Lock()
	h.gate = make(chan struct{})
	w := h.watch
	h.mu.Unlock()
	if w != nil {
		w.Stop()
	}
}

func (h *heldLW) release() { h.mu.Lock(); close(h.gate); h.mu.Unlock() }

func (h *heldLW) wait(ctx context.Context) error {
	h.mu.Lock()
	gate := h.gate
	h.mu.Unlock()
	select {
	case <-gate:
		return nil
	default:
	}
	h.waiting.Add(1)
	defer h.waiting.Add(-1)
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *heldLW) List(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	if err := h.wait(ctx); err != nil {
		return nil, err
	}
	h.lists.Add(1)
	return h.lw.List(ctx, o)
}

func (h *heldLW) Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	if err := h.wait(ctx); err != nil {
		return nil, err
	}
	w, err := h.lw.Watch(ctx, o)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watch = w
	select {
	case <-h.gate:
	default:
		w.Stop() // held while this watch was being opened
	}
	return w, nil
}

// The same on a real API server: namespace a's client is cut off while
// etcd's history is compacted, so b relists (410 Gone) alone. b's list
// lacks every object of a, yet a's stay cached — even one deleted on the
// server meanwhile — until a relists in turn and finds that one gone.
func TestRelistOfOneNamespaceOnARealServer(t *testing.T) {
	ctx, env, cs := context.Background(), testkit.Env(t), testkit.Clientset(t)
	nsA, nsB := testkit.Namespace(t, "relist-a-"), testkit.Namespace(t, "relist-b-")
	create := func(ns, name string) {
		t.Helper()
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"one", "two"} {
		create(nsA, name)
		create(nsB, name)
	}
	lwA, lwB := newHeldLW(reflector.FromClient(cs.CoreV1().ConfigMaps(nsA))), newHeldLW(reflector.FromClient(cs.CoreV1().ConfigMaps(nsB)))
	inf := newFed[*corev1.ConfigMap]([]string{nsA, nsB}, []reflector.ListerWatcher{lwA, lwB},
		[]Option{WithName("configmaps/" + nsA + "," + nsB), fastRetries()})
	rec := &recorder{}
	if _, err := inf.AddHandler(rec); err != nil {
		t.Fatal(err)
	}
	defer runInformer(t, inf)()
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := inf.WaitForSync(syncCtx); err != nil {
		t.Fatal(err)
	}

	lwA.hold()
	testkit.Eventually(t, 30*time.Second, "namespace a's reflector cut off", func() bool { return lwA.waiting.Load() > 0 })
	env.DropConnections()
	// The test's own connection was cut too: retry until it is back.
	testkit.Eventually(t, 30*time.Second, "a write after the cut", func() error {
		_, err := cs.CoreV1().ConfigMaps(nsB).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "three"}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	if err := cs.CoreV1().ConfigMaps(nsA).Delete(ctx, "one", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 60*time.Second, "b relisted with its new object", func() bool {
		_, ok := inf.Cache().Get(nsB, "three")
		return ok && lwB.lists.Load() >= 2
	})
	for _, name := range []string{"one", "two"} {
		if _, ok := inf.Cache().Get(nsA, name); !ok {
			t.Fatalf("b's relist removed %s/%s from the cache; events %q", nsA, name, rec.seen())
		}
	}

	lwA.release()
	testkit.Eventually(t, 60*time.Second, "a relisted without its deleted object", has(rec, "delete "+nsA+"/one unknown=true"))
	if n := lwA.lists.Load(); n < 2 {
		t.Fatalf("namespace a listed %d times, want a relist", n)
	}
	for _, e := range rec.seen() {
		if strings.HasPrefix(e, "delete ") && e != "delete "+nsA+"/one unknown=true" {
			t.Errorf("unexpected deletion %q; events %q", e, rec.seen())
		}
	}
	if n := inf.Cache().Len(); n != 4 {
		t.Fatalf("cache holds %d objects, want %s/two and %s/one, two, three", n, nsA, nsB)
	}
}
