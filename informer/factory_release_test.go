package informer_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

var nopHandler = informer.HandlerFuncs[*corev1.ConfigMap]{}

func statsName(f *informer.Factory, name string) bool {
	return slices.ContainsFunc(f.Stats(), func(s informer.Stats) bool { return s.Name == name })
}

func syncIn(t *testing.T, inf *informer.Informer[*corev1.ConfigMap]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestFactoryReleasesAnInformerWithItsLastHandler(t *testing.T) {
	ns, cs := testkit.Namespace(t, "release-"), testkit.Clientset(t)
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Data: map[string]string{"color": "red"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := newFactory(t, testkit.Env(t).Config, clientgoscheme.Scheme)
	inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.AddIndex("by-color", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Data["color"]}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := inf.SetTransform(func(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		cm.Annotations = map[string]string{"transformed": "yes"}
		return cm, nil
	}); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer startFactory(f, runCtx)()
	defer cancel()

	first, err := inf.AddHandler(nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	second, err := inf.AddHandler(nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	syncIn(t, inf)
	name := "configmaps/" + ns

	first.Remove()
	if inf.Released() || !statsName(f, name) {
		t.Fatalf("released with a handler left (Released %v, Stats %+v)", inf.Released(), f.Stats())
	}
	second.Remove()
	second.Remove() // idempotent
	if !inf.Released() {
		t.Fatal("not released when its last handler was removed")
	}
	if statsName(f, name) {
		t.Errorf("Stats lists the released informer: %+v", f.Stats())
	}
	if inf.HasSynced() {
		t.Error("a released informer says it has synced")
	}
	if _, err := inf.AddHandler(nopHandler); !errors.Is(err, informer.ErrReleased) {
		t.Errorf("AddHandler on a released informer: %v, want ErrReleased", err)
	}
	if err := inf.WaitForSync(ctx); !errors.Is(err, informer.ErrReleased) || !errors.Is(err, informer.ErrNotSynced) {
		t.Errorf("WaitForSync of a released informer: %v, want ErrReleased and ErrNotSynced", err)
	}
	testkit.Eventually(t, 30*time.Second, "the released cache to be emptied", func() bool { return inf.Cache().Len() == 0 })

	// Asked for again: a fresh informer, with the released one's settings.
	fresh, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if cur, err := inf.Current(); err != nil || cur != fresh || fresh == inf {
		t.Fatalf("Current %p (%v), For %p, released %p: want Current == For != released", cur, err, fresh, inf)
	}
	syncIn(t, fresh)
	if got, err := fresh.Cache().ByIndex("by-color", "red"); err != nil || len(got) != 1 {
		t.Errorf("the fresh informer's inherited index: %v, %v", got, err)
	}
	if cm, ok := fresh.Cache().Get(ns, "a"); !ok || cm.Annotations["transformed"] != "yes" {
		t.Errorf("the fresh informer's object %v (cached %v): the transform was not inherited", cm, ok)
	}
	if !statsName(f, name) {
		t.Errorf("Stats does not list the fresh informer: %+v", f.Stats())
	}
	if same, _ := fresh.Current(); same != fresh {
		t.Error("Current of an informer that is not released is not itself")
	}
}

// An informer asked for across all namespaces from a namespaced factory is
// renewed across all namespaces, not in the factory's namespace.
func TestReleasedInformerIsRenewedAsAsked(t *testing.T) {
	ns := testkit.Namespace(t, "release-")
	f := newFactory(t, testkit.Env(t).Config, clientgoscheme.Scheme, informer.WithNamespace(ns))
	sel := object.Selector{Labels: "steady.dev/none=" + ns} // keeps the cluster-wide list empty
	all, err := informer.For[*corev1.ConfigMap](f, informer.AllNamespaces, sel)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := all.AddHandler(nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	reg.Remove() // before the factory starts: released all the same
	if !all.Released() || len(f.Stats()) != 0 {
		t.Fatalf("released %v, Stats %+v", all.Released(), f.Stats())
	}
	next, err := all.Current()
	if err != nil {
		t.Fatal(err)
	}
	if next == all || next.Namespaces() != nil {
		t.Errorf("renewed informer %s in namespaces %q, want a fresh one across all namespaces", next.Name(), next.Namespaces())
	}
}

// A factory that is stopping keeps its informers: handlers removed as
// controllers stop must not empty caches other readers still use.
func TestStoppingFactoryKeepsInformers(t *testing.T) {
	ns := testkit.Namespace(t, "release-")
	f := newFactory(t, testkit.Env(t).Config, clientgoscheme.Scheme)
	inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := inf.AddHandler(nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := startFactory(f, ctx)
	syncIn(t, inf)
	cancel()
	reg.Remove()
	wait()
	if inf.Released() {
		t.Error("a stopping factory released an informer")
	}
}

// Handlers come and go on one kind from several goroutines while the
// factory runs (go test -race): each registration lands on a live informer
// (Current after ErrReleased), and when the last one is gone nothing of
// the kind runs (TestMain checks for leaked goroutines).
func TestHandlersComingAndGoingConcurrently(t *testing.T) {
	ns := testkit.Namespace(t, "release-")
	f := newFactory(t, testkit.Env(t).Config, clientgoscheme.Scheme)
	ctx, cancel := context.WithCancel(context.Background())
	defer startFactory(f, ctx)()
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 24)
	for range 3 {
		wg.Go(func() {
			for range 8 {
				inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
				if err != nil {
					errs <- err
					return
				}
				reg, err := inf.AddHandler(nopHandler)
				for errors.Is(err, informer.ErrReleased) {
					if inf, err = inf.Current(); err == nil {
						reg, err = inf.AddHandler(nopHandler)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				reg.Remove()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if statsName(f, "configmaps/"+ns) {
		t.Errorf("an informer is left with no handler: %+v", f.Stats())
	}
}
