package finalizer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const name = "test.steady.dev/cleanup"

func nop(context.Context, *corev1.ConfigMap) (reconcile.Result, error) {
	return reconcile.Result{}, nil
}

func TestNewRefusesBadInput(t *testing.T) {
	var c client.Interface[*corev1.ConfigMap] = &client.Client[*corev1.ConfigMap]{}
	funcs := finalizer.Funcs[*corev1.ConfigMap]{Apply: nop, Cleanup: nop}
	for what, tc := range map[string]struct {
		c     client.Interface[*corev1.ConfigMap]
		name  string
		funcs finalizer.Funcs[*corev1.ConfigMap]
		want  string
	}{
		"no client":     {nil, name, funcs, `finalizer "test.steady.dev/cleanup": no client`},
		"no cleanup":    {c, name, finalizer.Funcs[*corev1.ConfigMap]{Apply: nop}, "Funcs needs both Apply and Cleanup"},
		"no apply":      {c, name, finalizer.Funcs[*corev1.ConfigMap]{Cleanup: nop}, "Funcs needs both Apply and Cleanup"},
		"invalid name":  {c, "a/b/c", funcs, `finalizer "a/b/c": not a valid finalizer name`},
		"not qualified": {c, "cleanup", funcs, "want a domain-qualified name, such as example.com/cleanup"},
		"empty name":    {c, "", funcs, "not a valid finalizer name"},
	} {
		if _, err := finalizer.New(tc.c, tc.name, tc.funcs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", what, err, tc.want)
		}
	}
}

// A failing cleanup is retried by the controller, with backoff, until it
// succeeds; the object stays until then, and goes right after. Apply runs
// on the live object only, after the finalizer was stored.
func TestFailingCleanupIsRetriedUntilItSucceeds(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "finalizer-"), testkit.Clientset(t)
	mgr, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	configMaps, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	var applies, cleanups atomic.Int32
	var mu sync.Mutex
	var violations []string
	violation := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		violations = append(violations, fmt.Sprintf(format, args...))
	}
	r, err := finalizer.New(configMaps, name, finalizer.Funcs[*corev1.ConfigMap]{
		Apply: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			applies.Add(1)
			if cm.DeletionTimestamp != nil || !slices.Contains(cm.Finalizers, name) {
				violation("apply of %s with deletionTimestamp %v, finalizers %v", cm.Name, cm.DeletionTimestamp, cm.Finalizers)
			}
			return reconcile.Result{}, nil
		},
		Cleanup: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			n := cleanups.Add(1)
			stored, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
			if err != nil || !slices.Contains(stored.Finalizers, name) {
				violation("cleanup %d: the object is gone or lost the finalizer before cleanup succeeded: %v", n, err)
			}
			if n < 3 {
				return reconcile.Result{}, fmt.Errorf("cleanup attempt %d: the external thing is still there", n)
			}
			return reconcile.Result{}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, mgr.Start)

	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the finalizer added and apply run", func() error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{})
		if err != nil || !slices.Contains(cm.Finalizers, name) || applies.Load() == 0 {
			return fmt.Errorf("finalizers %v, %d applies (%v)", cm.Finalizers, applies.Load(), err)
		}
		return nil
	})
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the object gone", func() error {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there after %d cleanups (%v)", cleanups.Load(), err)
	})
	if n := cleanups.Load(); n != 3 {
		t.Errorf("%d cleanups, want 3: two failures retried, then a success", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, v := range violations {
		t.Error(v)
	}
}

// conflictInjector is a transport that, once armed, changes the config
// map it names through another client right before the next PUT to it
// goes out: that PUT carries a resourceVersion the server no longer has,
// so it fails with 409 Conflict, every time.
type conflictInjector struct {
	next      http.RoundTripper
	path      string
	armed     atomic.Bool
	other     kubernetes.Interface
	namespace string
	name      string
	conflicts atomic.Int32
	err       atomic.Pointer[error]
}

func (c *conflictInjector) RoundTrip(req *http.Request) (*http.Response, error) {
	hit := req.Method == http.MethodPut && req.URL.Path == c.path
	if hit && c.armed.CompareAndSwap(true, false) {
		patch := []byte(`{"metadata":{"labels":{"changed-by":"another-writer"}}}`)
		if _, err := c.other.CoreV1().ConfigMaps(c.namespace).Patch(req.Context(), c.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			c.err.Store(&err)
		}
	}
	resp, err := c.next.RoundTrip(req)
	if hit && err == nil && resp.StatusCode == http.StatusConflict {
		c.conflicts.Add(1)
	}
	return resp, err
}

// started returns a client of config maps in ns over a factory that runs
// until the test ends, its cache synced; wrap, if not nil, wraps its
// transport.
func started(t *testing.T, ns string, wrap func(http.RoundTripper) http.RoundTripper) *client.Client[*corev1.ConfigMap] {
	t.Helper()
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.WrapTransport = wrap
	cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(cl, informer.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.For[*corev1.ConfigMap](f, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	syncCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if err := f.WaitForCacheSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	return c
}

// cachedWith waits until c's cache holds ns/name and it satisfies ok.
func cachedWith(t *testing.T, c *client.Client[*corev1.ConfigMap], ns, name, what string, ok func(*corev1.ConfigMap) bool) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "the cache to show "+what, func() error {
		cm, err := c.Get(context.Background(), ns, name)
		if err == nil && !ok(cm) {
			err = errors.New("not yet")
		}
		return err
	})
}

func request(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// Another writer changes the object between the read and the write that
// removes the finalizer: the write conflicts, is retried on a fresh read,
// and the finalizer goes, and with it the object.
func TestConflictDuringRemoval(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "finalizer-"), testkit.Clientset(t)
	inject := &conflictInjector{path: "/api/v1/namespaces/" + ns + "/configmaps/b", other: cs, namespace: ns, name: "b"}
	configMaps := started(t, ns, func(rt http.RoundTripper) http.RoundTripper { inject.next = rt; return inject })
	var cleanups atomic.Int32
	r, err := finalizer.New(configMaps, name, finalizer.Funcs[*corev1.ConfigMap]{
		Apply: nop,
		Cleanup: func(context.Context, *corev1.ConfigMap) (reconcile.Result, error) {
			cleanups.Add(1)
			inject.armed.Store(true) // the removal's write is next
			return reconcile.Result{}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cachedWith(t, configMaps, ns, "b", "b", func(*corev1.ConfigMap) bool { return true })
	if _, err := r.Reconcile(ctx, request(ns, "b")); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cachedWith(t, configMaps, ns, "b", "b being deleted", func(cm *corev1.ConfigMap) bool { return cm.DeletionTimestamp != nil })

	if _, err := r.Reconcile(ctx, request(ns, "b")); err != nil {
		t.Fatalf("reconcile of the deleted object: %v", err)
	}
	if p := inject.err.Load(); p != nil {
		t.Fatalf("the other writer failed: %v", *p)
	}
	if n := inject.conflicts.Load(); n != 1 {
		t.Fatalf("%d conflicts on the removal, want the 1 injected", n)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after the removal: %v, want the object gone", err)
	}
	if n := cleanups.Load(); n != 1 {
		t.Fatalf("%d cleanups, want 1", n)
	}
	// Once gone, a reconcile does nothing.
	testkit.Eventually(t, 20*time.Second, "the cache to lose b", func() error {
		_, err := configMaps.Get(ctx, ns, "b")
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still cached (%v)", err)
	})
	if _, err := r.Reconcile(ctx, request(ns, "b")); err != nil || cleanups.Load() != 1 {
		t.Fatalf("reconcile of a gone object: %v, %d cleanups", err, cleanups.Load())
	}
}

// An object being deleted that does not carry the finalizer (another
// finalizer holds it) gets neither the finalizer, nor Apply, nor Cleanup.
func TestDeletingObjectWithoutTheFinalizer(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "finalizer-"), testkit.Clientset(t)
	configMaps := started(t, ns, nil)
	var calls atomic.Int32
	count := func(context.Context, *corev1.ConfigMap) (reconcile.Result, error) {
		calls.Add(1)
		return reconcile.Result{}, nil
	}
	r, err := finalizer.New(configMaps, name, finalizer.Funcs[*corev1.ConfigMap]{Apply: count, Cleanup: count})
	if err != nil {
		t.Fatal(err)
	}
	const hold = "test.steady.dev/hold"
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Finalizers: []string{hold}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cachedWith(t, configMaps, ns, "c", "c being deleted", func(cm *corev1.ConfigMap) bool { return cm.DeletionTimestamp != nil })
	if _, err := r.Reconcile(ctx, request(ns, "c")); err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "c", metav1.GetOptions{})
	if err != nil || !slices.Equal(cm.Finalizers, []string{hold}) || calls.Load() != 0 {
		t.Fatalf("finalizers %v, %d calls of Apply or Cleanup (%v); want only %s and no calls", cm.Finalizers, calls.Load(), err, hold)
	}
	cm.Finalizers = nil
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A missing object is no error.
	if _, err := r.Reconcile(ctx, request(ns, "never-was")); err != nil {
		t.Fatalf("reconcile of a missing object: %v", err)
	}
}
