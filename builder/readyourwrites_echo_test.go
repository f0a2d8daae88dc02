package builder_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
)

// observer copies a ConfigMap's data["v"] to its annotation "observed",
// with an Update of the cached object: one write per change, whose echo
// is the only thing that reconciling it again would see.
type observer struct {
	cms *client.Client[*corev1.ConfigMap]

	mu      sync.Mutex
	byValue map[string]int // reconciles by the data["v"] they saw
}

func (r *observer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cm, err := r.cms.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	v := cm.Data["v"]
	r.mu.Lock()
	r.byValue[v]++
	r.mu.Unlock()
	if cm.Annotations["observed"] == v {
		return reconcile.Result{}, nil
	}
	cm = cm.DeepCopy()
	metav1.SetMetaDataAnnotation(&cm.ObjectMeta, "observed", v)
	_, err = r.cms.Update(ctx, cm)
	return reconcile.Result{}, err
}

func (r *observer) reconciles() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.byValue)
}

// With WithDropOwnEchoes, a controller that writes its primary once per
// change reconciles once per change: the update event that only brings
// back its own write is dropped. Without it, every change is reconciled
// twice.
func TestReadYourWritesOwnEchoes(t *testing.T) {
	const changes = 4 // the creation included
	for _, drop := range []bool{true, false} {
		t.Run(fmt.Sprintf("drop=%t", drop), func(t *testing.T) {
			e := newRYWEnv(t) // no lag: the echoes come as fast as they can
			cms, err := client.For[*corev1.ConfigMap](e.mgr.Factory(), "")
			if err != nil {
				t.Fatal(err)
			}
			r := &observer{cms: cms, byValue: map[string]int{}}
			err = builder.ControllerManagedBy(e.mgr).Named("observer").For(builder.Kind(&corev1.ConfigMap{})).
				WithOptions(controller.WithDropOwnEchoes(drop)).Complete(r)
			if err != nil {
				t.Fatal(err)
			}
			testkit.Run(t, e.mgr.Start)
			testkit.Eventually(t, 10*time.Second, "the cache to sync", cms.Informer().HasSynced)

			for i := range changes {
				v := strconv.Itoa(i)
				var err error
				if i == 0 {
					_, err = e.cs.CoreV1().ConfigMaps(e.ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "o"}, Data: map[string]string{"v": v}}, metav1.CreateOptions{})
				} else {
					_, err = e.patchParent("o", fmt.Sprintf(`{"data":{"v":%q}}`, v))
				}
				if err != nil {
					t.Fatal(err)
				}
				// Done with the change once its echo is: dropped, or reconciled.
				if drop {
					testkit.Eventually(t, 10*time.Second, "the echo of write "+v+" dropped", func() bool {
						echoes, _ := e.metric(t, "steady_own_write_echoes_dropped_total", "observer")
						return echoes == float64(i+1)
					})
				} else {
					testkit.Eventually(t, 10*time.Second, "the echo of write "+v+" reconciled", func() bool { return r.reconciles()[v] == 2 })
				}
			}
			got := r.reconciles()
			echoes, _ := e.metric(t, "steady_own_write_echoes_dropped_total", "observer")
			t.Logf("reconciles by value seen: %v; echoes dropped: %v", got, echoes)
			want := 1
			if !drop {
				want = 2
			}
			values := slices.Sorted(maps.Keys(got))
			if len(values) != changes || slices.ContainsFunc(values, func(v string) bool { return got[v] != want }) {
				t.Fatalf("reconciles by value %v, want %d for each of the %d changes", got, want, changes)
			}
			if !drop && echoes != 0 {
				t.Fatalf("%v echoes dropped without WithDropOwnEchoes", echoes)
			}
		})
	}
}
