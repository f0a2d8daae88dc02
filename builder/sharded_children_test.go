package builder_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

// Parents (ConfigMaps) own children (Secrets) in eight namespaces, shared
// by two replicas. Sharded by namespace, each replica caches only its
// namespaces' parents and children; sharded by uid, each caches its
// parents and every child. Either way a child's change is reconciled as
// its parent's request, by the parent's replica only, and so is the
// deletion of a parent.
func TestShardedChildrenFollowTheirOwner(t *testing.T) {
	for _, field := range []shard.Field{shard.Namespace, shard.UID} {
		t.Run(string(field), func(t *testing.T) { testShardedChildren(t, field) })
	}
}

// family is one replica of the parent/child operator.
type family struct {
	id       string
	ring     *shard.Ring
	parents  *informer.Informer[*corev1.ConfigMap]
	children *informer.Informer[*corev1.Secret]
}

// reconciles records who reconciled which parent, when.
type reconciles struct {
	mu  sync.Mutex
	log []reconcileAt
}

type reconcileAt struct {
	replica, key string
	at           time.Time
}

func (r *reconciles) by(id string) reconcile.Reconciler {
	return reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.log = append(r.log, reconcileAt{id, req.String(), time.Now()})
		return reconcile.Result{}, nil
	})
}

// since returns, by key, the replicas that reconciled it at or after t.
func (r *reconciles) since(t time.Time) map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]string{}
	for _, x := range r.log {
		if !x.at.Before(t) && !slices.Contains(out[x.key], x.replica) {
			out[x.key] = append(out[x.key], x.replica)
		}
	}
	return out
}

func testShardedChildren(t *testing.T, field shard.Field) {
	env := testkit.Env(t)
	cs := env.Clientset
	var nss []string
	for range 8 {
		nss = append(nss, testkit.Namespace(t, "family"))
	}
	rec := &reconciles{}
	var fams []*family
	for _, id := range []string{"a", "b"} {
		mgr, err := manager.New(env.Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespaces(nss...))
		if err != nil {
			t.Fatal(err)
		}
		ring, err := shard.New(mgr.Cluster(), "family", id, shard.WithNamespace(nss[0]), shard.WithLeaseDuration(shardLease),
			shard.WithRenewDeadline(shardRenew), shard.WithRetryPeriod(shardRetry))
		if err != nil {
			t.Fatal(err)
		}
		err = builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).Owns(builder.Kind(&corev1.Secret{})).
			Sharded(ring, field).Complete(rec.by(id))
		if err != nil {
			t.Fatal(err)
		}
		f := &family{id: id, ring: ring}
		if f.parents, err = informer.For[*corev1.ConfigMap](mgr.Factory(), "", object.Selector{}); err != nil {
			t.Fatal(err)
		}
		if f.children, err = informer.For[*corev1.Secret](mgr.Factory(), "", object.Selector{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := mgr.Start(ctx); err != nil {
				t.Errorf("replica %s: %v", id, err)
			}
		}()
		t.Cleanup(func() { cancel(); <-done })
		fams = append(fams, f)
	}
	testkit.Eventually(t, 30*time.Second, "both replicas joined", func() bool {
		return slices.Equal(fams[0].ring.Members(), []string{"a", "b"}) && slices.Equal(fams[1].ring.Members(), []string{"a", "b"})
	})
	a := fams[0].ring.Assignment()

	// A parent and its child in each namespace.
	owner := map[string]string{} // parent key -> replica owning it
	created := time.Now()
	for _, ns := range nss {
		p, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "parent"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := shard.HashObject(p, field)
		owner[ns+"/parent"] = a.Owner(h)
		_, err = cs.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "child",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}}},
			metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	cached := func(f *family) (parents, children []string) {
		for _, p := range f.parents.Cache().List() {
			parents = append(parents, p.Namespace)
		}
		for _, c := range f.children.Cache().List() {
			children = append(children, c.Namespace)
		}
		slices.Sort(parents)
		slices.Sort(children)
		return parents, children
	}
	testkit.Eventually(t, 60*time.Second, "each replica caches its parents, and the children as sharded", func() error {
		for _, f := range fams {
			var mine []string
			for _, ns := range nss {
				if owner[ns+"/parent"] == f.id {
					mine = append(mine, ns)
				}
			}
			slices.Sort(mine)
			wantChildren := mine
			if field == shard.UID {
				wantChildren = slices.Sorted(slices.Values(nss)) // children are not sharded by uid
			}
			parents, children := cached(f)
			if !slices.Equal(parents, mine) || !slices.Equal(children, wantChildren) {
				return fmt.Errorf("%s caches parents in %v and children in %v, want %v and %v", f.id, parents, children, mine, wantChildren)
			}
		}
		return nil
	})
	// reconciledByOwner checks that every parent was reconciled since t,
	// by its owner only.
	reconciledByOwner := func(t0 time.Time) func() error {
		return func() error {
			got := rec.since(t0)
			for key, o := range owner {
				if !slices.Equal(got[key], []string{o}) {
					return fmt.Errorf("%s reconciled by %v since, want %s only", key, got[key], o)
				}
			}
			return nil
		}
	}
	testkit.Eventually(t, 30*time.Second, "every parent reconciled by its owner", reconciledByOwner(created))

	// A child's change is its parent's request, on the parent's replica.
	touched := time.Now()
	for _, ns := range nss {
		s, err := cs.CoreV1().Secrets(ns).Get(context.Background(), "child", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Labels = map[string]string{"touched": "yes"}
		if _, err := cs.CoreV1().Secrets(ns).Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 30*time.Second, "every child's change reconciled by its parent's replica", reconciledByOwner(touched))
	var spread []string
	for _, f := range fams {
		p, c := cached(f)
		spread = append(spread, fmt.Sprintf("%s: %d parents, %d children", f.id, len(p), len(c)))
	}
	t.Logf("sharded by %s: %v", field, spread)

	// A deleted parent is no longer cached: its request is placed by the
	// uid its delete event carried, and reconciled by its owner.
	deleted := time.Now()
	for _, ns := range nss {
		if err := cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), "parent", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 30*time.Second, "every deleted parent reconciled by its replica", reconciledByOwner(deleted))
}
