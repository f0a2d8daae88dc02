package informer_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// widgets is the resource of the tests' Widget custom resource, which
// testkit.InstallCRD installs.
var widgets = schema.GroupVersionResource{Group: "test.steady.dev", Version: "v1", Resource: "widgets"}

// A factory that has already read discovery still finds a kind whose CRD
// was installed afterwards.
func TestFactoryFindsKindsInstalledLater(t *testing.T) {
	env := testkit.Env(t)
	f := newFactory(t, env.Config, clientgoscheme.Scheme)
	if _, err := informer.For[*corev1.ConfigMap](f, "default", object.Selector{}); err != nil {
		t.Fatal(err) // discovery is now cached
	}
	gadgets := schema.GroupVersionResource{Group: "later.steady.dev", Version: "v1", Resource: "gadgets"}
	testkit.InstallCRD(t, gadgets.GroupVersion().WithKind("Gadget"))
	if _, err := informer.ForUnstructured(f, gadgets.GroupVersion().WithKind("Gadget"), "default", object.Selector{}); err != nil {
		t.Fatalf("a kind installed after discovery was cached: %v", err)
	}
}

// view is what a handler believes exists: key -> resourceVersion.
type view struct {
	mu  sync.Mutex
	rvs map[string]string
}

func newView[T object.Object]() (*view, informer.Handler[T]) {
	v := &view{rvs: map[string]string{}}
	set := func(o T) {
		v.mu.Lock()
		v.rvs[object.Key(o)] = o.GetResourceVersion()
		v.mu.Unlock()
	}
	return v, informer.HandlerFuncs[T]{
		CreateFunc: func(e event.Create[T]) { set(e.Object) },
		UpdateFunc: func(e event.Update[T]) { set(e.ObjectNew) },
		DeleteFunc: func(e event.Delete[T]) {
			v.mu.Lock()
			delete(v.rvs, object.FormatKey(e.Key))
			v.mu.Unlock()
		},
	}
}

func (v *view) equals(want map[string]string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Equal(v.rvs, want)
}

func TestHandlersConvergeOnConsistentListUnderChurn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, cs := testkit.Env(t), testkit.Clientset(t)
	dyn := dynamic.NewForConfigOrDie(env.Config)
	testkit.InstallCRD(t, widgets.GroupVersion().WithKind("Widget"))
	ns := testkit.Namespace(t, "churn-")

	cms, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(ns)), informer.WithName("configmaps"))
	if err != nil {
		t.Fatal(err)
	}
	wds, err := informer.New[*unstructured.Unstructured](reflector.FromDynamic(dyn, widgets, ns), informer.WithName("widgets"))
	if err != nil {
		t.Fatal(err)
	}
	v1, h1 := newView[*corev1.ConfigMap]()
	v2, h2 := newView[*corev1.ConfigMap]()
	v3, h3 := newView[*unstructured.Unstructured]()
	for _, h := range []informer.Handler[*corev1.ConfigMap]{h1, h2} {
		if _, err := cms.AddHandler(h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wds.AddHandler(h3); err != nil {
		t.Fatal(err)
	}
	runCtx, stopInformers := context.WithCancel(ctx)
	var running sync.WaitGroup
	for _, run := range []func(context.Context) error{cms.Start, wds.Start} {
		running.Go(func() {
			if err := run(runCtx); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	if err := informer.WaitForCacheSync(ctx, cms, wds); err != nil {
		t.Fatal(err)
	}

	churn(t, ctx, env, cs, dyn, ns)

	want := func() (map[string]string, map[string]string) {
		cmList, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wList, err := dyn.Resource(widgets).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := map[string]string{}, map[string]string{}
		for _, c := range cmList.Items {
			a[object.Key(&c)] = c.ResourceVersion
		}
		for _, w := range wList.Items {
			b[object.Key(&w)] = w.GetResourceVersion()
		}
		return a, b
	}
	testkit.Eventually(t, 60*time.Second, "handlers to match a consistent LIST", func() bool {
		wantCM, wantW := want()
		return v1.equals(wantCM) && v2.equals(wantCM) && v3.equals(wantW) && len(wantCM) > 0
	})
	wantCM, _ := want()
	if got := cms.Cache().Len(); got != len(wantCM) {
		t.Fatalf("cache holds %d ConfigMaps, LIST %d", got, len(wantCM))
	}
	stopInformers()
	running.Wait()
}

// churn creates, updates and deletes 1,000 ConfigMaps and 100 Widgets from 8
// writers, cutting every watch connection three times along the way.
func churn(t *testing.T, ctx context.Context, env *testenv.Environment, cs kubernetes.Interface, dyn dynamic.Interface, ns string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < 1000; i += 8 {
				name := fmt.Sprintf("cm-%04d", i)
				cmi := cs.CoreV1().ConfigMaps(ns)
				err := retry(func() error {
					_, err := cmi.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
					if apierrors.IsAlreadyExists(err) {
						return nil // an earlier attempt got through before the cut
					}
					return err
				})
				switch {
				case err != nil:
				case i%3 == 1:
					err = retry(func() error {
						cur, err := cmi.Get(ctx, name, metav1.GetOptions{})
						if err != nil {
							return err
						}
						cur.Data["v"] = "1"
						_, err = cmi.Update(ctx, cur, metav1.UpdateOptions{})
						return err
					})
				case i%3 == 2:
					err = retry(func() error {
						if err := cmi.Delete(ctx, name, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
							return err
						}
						return nil
					})
				}
				if err != nil {
					errs <- err
					return
				}
				if i < 100 {
					wd := &unstructured.Unstructured{Object: map[string]any{
						"apiVersion": "test.steady.dev/v1", "kind": "Widget",
						"metadata": map[string]any{"name": fmt.Sprintf("w-%03d", i)}, "spec": map[string]any{"n": int64(i)}}}
					if err := retry(func() error {
						_, err := dyn.Resource(widgets).Namespace(ns).Create(ctx, wd, metav1.CreateOptions{})
						if apierrors.IsAlreadyExists(err) {
							return nil
						}
						return err
					}); err != nil {
						errs <- err
						return
					}
				}
				if i == 250 || i == 500 || i == 750 {
					env.DropConnections()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("writer: %v", err)
	}
}

// retry repeats op while it fails: the connection cuts of this test hit the
// writers too. Five tries are plenty for a local server.
func retry(op func() error) error {
	var err error
	for range 5 {
		if err = op(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

func TestFactorySharesAndStartsInformers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	env, cs := testkit.Env(t), testkit.Clientset(t)
	dyn := dynamic.NewForConfigOrDie(env.Config)
	testkit.InstallCRD(t, widgets.GroupVersion().WithKind("Widget"))
	ns := testkit.Namespace(t, "factory-")
	for _, name := range []string{"a", "b"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pick": name}}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	wd := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "test.steady.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}}}
	if _, err := dyn.Resource(widgets).Namespace(ns).Create(ctx, wd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	f := newFactory(t, env.Config, clientgoscheme.Scheme)
	typed, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	onlyA, _ := informer.For[*corev1.ConfigMap](f, ns, object.Selector{Labels: "pick=a"})
	if typed != again || typed == onlyA {
		t.Fatal("the factory must share an informer per kind, namespace and selectors, and only then")
	}
	stop := startFactory(f, ctx)
	// Handed out after Start: started at once.
	meta, err := informer.ForMetadata(f, corev1.SchemeGroupVersion.WithKind("ConfigMap"), ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	crs, err := informer.ForUnstructured(f, schema.GroupVersionKind{Group: "test.steady.dev", Version: "v1", Kind: "Widget"}, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if err := f.WaitForCacheSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	if typed.Cache().Len() != 2 || onlyA.Cache().Len() != 1 || meta.Cache().Len() != 2 || crs.Cache().Len() != 1 {
		t.Fatalf("cache sizes: typed %d, selected %d, metadata %d, widgets %d; want 2, 1, 2, 1",
			typed.Cache().Len(), onlyA.Cache().Len(), meta.Cache().Len(), crs.Cache().Len())
	}
	if _, err := informer.For[*corev1.ConfigMap](informerFactoryWithoutCore(t, env), "", object.Selector{}); err == nil ||
		!strings.Contains(err.Error(), "not in the scheme") {
		t.Fatalf("a kind missing from the scheme: %v", err)
	}
	cancel()
	stop()
}

func informerFactoryWithoutCore(t *testing.T, env *testenv.Environment) *informer.Factory {
	t.Helper()
	f := newFactory(t, env.Config, runtime.NewScheme())
	return f
}

// A factory's informers cache objects without managedFields, and a user's
// transform sees them already dropped; WithKeepManagedFields keeps them.
func TestFactoryDropsManagedFieldsUnlessKept(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, cs := testkit.Env(t), testkit.Clientset(t)
	ns := testkit.Namespace(t, "managed-")
	created, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.ManagedFields) == 0 {
		t.Fatal("the API server recorded no managedFields; the test would prove nothing")
	}
	managed := func(keep bool) (typed, meta int, seenByTransform int) {
		f := newFactory(t, env.Config, clientgoscheme.Scheme, informer.WithKeepManagedFields(keep))
		ti, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
		if err != nil {
			t.Fatal(err)
		}
		var seen atomic.Int32
		if err := ti.SetTransform(func(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			seen.Store(int32(len(cm.ManagedFields)))
			return cm, nil
		}); err != nil {
			t.Fatal(err)
		}
		mi, err := informer.ForMetadata(f, corev1.SchemeGroupVersion.WithKind("ConfigMap"), ns, object.Selector{})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, cancelRun := context.WithCancel(ctx)
		defer startFactory(f, runCtx)() // runs after cancelRun, which is deferred next
		defer cancelRun()
		syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
		defer syncCancel()
		if err := f.WaitForCacheSync(syncCtx); err != nil {
			t.Fatal(err)
		}
		tc, ok1 := ti.Cache().Get(ns, "c")
		mc, ok2 := mi.Cache().Get(ns, "c")
		if !ok1 || !ok2 {
			t.Fatalf("keep=%v: object not cached (typed %v, metadata %v)", keep, ok1, ok2)
		}
		return len(tc.ManagedFields), len(mc.ManagedFields), int(seen.Load())
	}
	if typed, meta, seen := managed(false); typed != 0 || meta != 0 || seen != 0 {
		t.Errorf("default: managedFields entries typed %d, metadata %d, seen by the transform %d; want none", typed, meta, seen)
	}
	if typed, meta, seen := managed(true); typed == 0 || meta == 0 || seen == 0 {
		t.Errorf("kept: managedFields entries typed %d, metadata %d, seen by the transform %d; want some", typed, meta, seen)
	}
}

// newFactory returns an informer factory of the cluster at cfg.
func newFactory(t *testing.T, cfg *rest.Config, scheme *runtime.Scheme, opts ...informer.FactoryOption) *informer.Factory {
	t.Helper()
	c, err := cluster.New(cfg, cluster.WithScheme(scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// startFactory runs f until ctx is done; the function it returns waits for
// f to have stopped (cancel ctx first).
func startFactory(f *informer.Factory, ctx context.Context) (wait func()) {
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Start(ctx) }()
	<-f.Started()
	return func() { <-done }
}
