package builder_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/writes"
)

// opaqueLW lists items at resourceVersion rv and then watches forever
// without an event: the API server of an aggregated API whose
// resourceVersions need not be numbers, which kube-apiserver's always are.
type opaqueLW struct {
	rv    string
	items []corev1.ConfigMap
}

func (l opaqueLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: l.rv}, Items: l.items}, nil
}

func (l opaqueLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// A write whose resourceVersion, or its cache's, is not a number cannot
// be compared: the gate fails open and the next reconcile runs at once,
// not after the wait bound. So does a deletion of an object such a cache
// holds: the cache cannot tell when it will see it go. With numbers on
// both sides, the same write holds it (the control case).
func TestReadYourWritesFailsOpen(t *testing.T) {
	for _, tc := range []struct {
		name            string
		listRV, writeRV string
		deleted         bool // the write deletes an object the cache holds
		held            bool
	}{
		{"write's resourceVersion not a number", "5", "x", false, false},
		{"cache's resourceVersion not a number", "opaque-1", "7", false, false},
		{"deletion, cache's resourceVersion not a number", "opaque-1", "", true, false},
		{"both numbers", "5", "7", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newRYWEnv(t)
			lw := opaqueLW{rv: tc.listRV}
			if tc.deleted {
				lw.items = []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "elsewhere", UID: "uid-1", ResourceVersion: tc.listRV}}}
			}
			opaque, err := informer.New[*corev1.ConfigMap](lw, informer.WithName("opaque"))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = opaque.Start(ctx) })
			t.Cleanup(func() { cancel(); wg.Wait() })
			if err := opaque.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}

			// The first reconcile records a write to the opaque informer.
			var reconciles atomic.Int32
			r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				if reconciles.Add(1) == 1 {
					writes.Record(ctx, writes.Write{Cache: opaque, Namespace: req.Namespace, Name: "elsewhere", UID: "uid-1", ResourceVersion: tc.writeRV, Deleted: tc.deleted})
				}
				return reconcile.Result{}, nil
			})
			// A bound far beyond the test's waits: a held reconcile does not run.
			err = builder.ControllerManagedBy(e.mgr).Named("opaque").For(builder.Kind(&corev1.ConfigMap{})).
				WithOptions(controller.WithReadYourWritesTimeout(time.Minute)).Complete(r)
			if err != nil {
				t.Fatal(err)
			}
			testkit.Run(t, e.mgr.Start)

			if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the first reconcile", func() bool { return reconciles.Load() == 1 })
			if _, err := e.patchParent("p", touch(1)); err != nil {
				t.Fatal(err)
			}
			if tc.held {
				testkit.Eventually(t, 10*time.Second, "the second reconcile held", func() bool {
					held, _ := e.metric(t, "steady_reconcile_held_total", "opaque")
					return held == 1
				})
				if n := reconciles.Load(); n != 1 {
					t.Fatalf("%d reconciles while held", n)
				}
				return
			}
			testkit.Eventually(t, 10*time.Second, "the second reconcile", func() bool { return reconciles.Load() == 2 })
			if held, _ := e.metric(t, "steady_reconcile_held_total", "opaque"); held != 0 {
				t.Fatalf("the second reconcile was held (%v): the gate did not fail open", held)
			}
		})
	}
}
