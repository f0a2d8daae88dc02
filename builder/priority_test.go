package builder_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
)

// TestChangeAfterRestartGoesBeforeInitialList is issue #22's restart: a
// manager starts over 5,000 existing ConfigMaps with one worker whose
// reconciles take a millisecond, so the initial list takes seconds to
// drain, and a ConfigMap is created as soon as the workers run. With the
// priority queue, the new one is reconciled while initial-list requests
// still wait (in first-in, first-out order it would come after all
// 5,000), and every initial-list ConfigMap is still reconciled, each with
// the reasons of an initial-list create.
func TestChangeAfterRestartGoesBeforeInitialList(t *testing.T) {
	const n = 5000
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "prio-"), testkit.Clientset(t)
	testkit.CreateConfigMaps(t, cs, ns, 0, n)

	var (
		mu        sync.Mutex
		initial   = map[string]reconcile.Reasons{} // cm-* reconciled, and their reasons
		freshWhy  reconcile.Reasons
		freshSeen = -1 // how many cm-* had been reconciled when "fresh" was
		working   = make(chan struct{})
		once      sync.Once
	)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		once.Do(func() { close(working) })
		why := reconcile.ReasonsFrom(ctx)
		mu.Lock()
		switch {
		case req.Name == "fresh" && freshSeen < 0:
			freshSeen, freshWhy = len(initial), why
		case strings.HasPrefix(req.Name, "cm-"):
			initial[req.Name] |= why
		}
		mu.Unlock()
		time.Sleep(time.Millisecond) // the work: makes the backlog last seconds
		return reconcile.Result{}, nil
	})
	m := newManager(t, ns)
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).
		WithOptions(controller.WithMaxConcurrentReconciles(1)).Complete(r); err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, m.Start)
	select {
	case <-working:
	case <-time.After(2 * time.Minute):
		t.Fatal("no reconcile within 2 minutes of the start")
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fresh"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 3*time.Minute, "every initial-list ConfigMap and the new one reconciled", func() error {
		mu.Lock()
		defer mu.Unlock()
		if freshSeen < 0 || len(initial) < n {
			return fmt.Errorf("%d of %d initial-list ConfigMaps reconciled, the new one %v", len(initial), n, freshSeen >= 0)
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	t.Logf("the new ConfigMap was reconciled after %d of the %d initial-list ones", freshSeen, n)
	if freshSeen >= n {
		t.Errorf("the new ConfigMap waited for all %d initial-list ones", n)
	}
	if freshWhy != reconcile.PrimaryCreated {
		t.Errorf("the new ConfigMap's reasons = %v, want %v", freshWhy, reconcile.PrimaryCreated)
	}
	for name, why := range initial {
		if !why.Has(reconcile.PrimaryCreated | reconcile.InitialList) {
			t.Fatalf("%s's reasons = %v, want primary_created,initial_list", name, why)
		}
	}
}
