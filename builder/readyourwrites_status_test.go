package builder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

var (
	ledgerGVK = schema.GroupVersionKind{Group: "ryw.steady.dev", Version: "v1", Kind: "Ledger"}
	ledgerGVR = schema.GroupVersionResource{Group: "ryw.steady.dev", Version: "v1", Resource: "ledgers"}
)

func newLedger(ns, name, value string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"value": value}}}
	u.SetGroupVersionKind(ledgerGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// ledgerKeeper appends a Ledger's spec.value to its status.seen, read from
// the cache, unless it is there: a merge patch of the status, which
// replaces the whole list, as a controller that rewrites its status
// conditions from what it read does.
type ledgerKeeper struct {
	ledgers *client.Client[*unstructured.Unstructured]
}

func (r ledgerKeeper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	l, err := r.ledgers.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	value, _, _ := unstructured.NestedString(l.Object, "spec", "value")
	seen, _, _ := unstructured.NestedStringSlice(l.Object, "status", "seen")
	if slices.Contains(seen, value) {
		return reconcile.Result{}, nil
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"seen": append(seen, value)}})
	if err != nil {
		return reconcile.Result{}, err
	}
	_, err = r.ledgers.PatchStatus(ctx, req.Namespace, req.Name, types.MergePatchType, patch)
	return reconcile.Result{}, err
}

// statusHistory records every status.seen of the Ledgers in ns the API
// server stores, in order, from a watch without lag, until the test ends.
type statusHistory struct {
	mu   sync.Mutex
	seen [][]string
}

func watchStatus(t *testing.T, ns string) *statusHistory {
	t.Helper()
	dyn, err := dynamic.NewForConfig(testkit.Env(t).Config)
	if err != nil {
		t.Fatal(err)
	}
	ledgers := dyn.Resource(ledgerGVR).Namespace(ns)
	l, err := ledgers.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := ledgers.Watch(context.Background(), metav1.ListOptions{ResourceVersion: l.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	h := &statusHistory{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			seen, found, _ := unstructured.NestedStringSlice(u.Object, "status", "seen")
			h.mu.Lock()
			if found && (len(h.seen) == 0 || !slices.Equal(h.seen[len(h.seen)-1], seen)) {
				h.seen = append(h.seen, seen)
			}
			h.mu.Unlock()
		}
	})
	t.Cleanup(func() { w.Stop(); wg.Wait() })
	return h
}

func (h *statusHistory) get() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen)
}

// reverted returns the first status in history that does not extend the
// one before it: a write that undid an earlier one; -1 if there is none.
func reverted(history [][]string) int {
	for i := 1; i < len(history); i++ {
		prev, cur := history[i-1], history[i]
		if len(cur) < len(prev) || !slices.Equal(cur[:len(prev)], prev) {
			return i
		}
	}
	return -1
}

// A controller that writes its status from what it read never reverts its
// own write with the gate on; with it off, the reconciles that run while
// the cache shows the status from before the write write the old status
// back, with one change: the first value appended is lost.
func TestReadYourWritesStatusNeverReverted(t *testing.T) {
	const lag, step, values = time.Second, 200 * time.Millisecond, 5
	crds, err := testenv.ReadCRDs("testdata/ledgers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("gate=%t", gate), func(t *testing.T) {
			if err := testkit.Env(t).InstallCRDs(context.Background(), crds...); err != nil {
				t.Fatal(err)
			}
			e := newRYWEnv(t)
			ledgers, err := client.ForUnstructured(e.mgr.Factory(), ledgerGVK, "")
			if err != nil {
				t.Fatal(err)
			}
			kind := &unstructured.Unstructured{}
			kind.SetGroupVersionKind(ledgerGVK)
			err = builder.ControllerManagedBy(e.mgr).Named("ledger").For(builder.Kind(kind)).
				WithOptions(controller.WithReadYourWrites(gate)).Complete(ledgerKeeper{ledgers})
			if err != nil {
				t.Fatal(err)
			}
			testkit.Run(t, e.mgr.Start)
			testkit.Eventually(t, 10*time.Second, "the cache to sync", ledgers.Informer().HasSynced)
			history := watchStatus(t, e.ns)

			e.staggered(t, lag, step, values, func(i int) ([]string, error) {
				var l *unstructured.Unstructured
				var err error
				if i == 0 {
					l, err = ledgers.Create(context.Background(), newLedger(e.ns, "l", "v0"))
				} else {
					l, err = ledgers.Patch(context.Background(), e.ns, "l", types.MergePatchType, fmt.Appendf(nil, `{"spec":{"value":"v%d"}}`, i))
				}
				if err != nil {
					return nil, err
				}
				return []string{l.GetResourceVersion()}, nil
			})
			last := fmt.Sprintf("v%d", values-1)
			if !gate {
				testkit.Eventually(t, 15*time.Second, "a status write that undoes an earlier one", func() bool { return reverted(history.get()) > 0 })
				h := history.get()
				i := reverted(h)
				t.Logf("status.seen on the server: %v; %v replaced %v", h, h[i], h[i-1])
				return
			}
			testkit.Eventually(t, 15*time.Second, "the last value in the status", func() bool {
				h := history.get()
				return len(h) > 0 && slices.Contains(h[len(h)-1], last)
			})
			h := history.get()
			t.Logf("status.seen on the server: %v", h)
			if i := reverted(h); i > 0 {
				t.Fatalf("status.seen went from %v to %v with the gate on; all: %v", h[i-1], h[i], h)
			}
			if h[0][0] != "v0" {
				t.Fatalf("status.seen %v, want it to start with v0", h)
			}
			if held, _ := e.metric(t, "steady_reconcile_held_total", "ledger"); held == 0 {
				t.Fatal("no reconcile held: the cache did not lag, and the test shows nothing")
			}
		})
	}
}
