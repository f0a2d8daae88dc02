package builder_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// The tests of this file and of readyourwrites_*_test.go show, against a
// real API server, what controller.WithReadYourWrites promises: a
// reconcile never starts on a cache older than the controller's last write
// for its request. Their managers read through a testenv.WatchLag, so the
// caches see every change late while the controllers' writes are answered
// at once: the state a busy API server produces now and then, on demand.

// rywEnv is a namespace and a manager restricted to it whose caches see
// watch events late (lag.Set) while its writes reach the API server at
// once.
type rywEnv struct {
	ns  string
	lag *testenv.WatchLag
	mgr *manager.Manager
	cs  kubernetes.Interface // the test's own clientset, without lag
}

func newRYWEnv(t *testing.T) *rywEnv {
	t.Helper()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "ryw-")
	lag, err := env.NewWatchLag(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lag.Close) // after the manager has stopped: cleanups run last first
	m, err := manager.New(lag.Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	return &rywEnv{ns: ns, lag: lag, mgr: m, cs: env.Clientset}
}

// staggered makes steps writes, write(0) to write(steps-1), the i-th with
// the watch lag set to base+i*step: its event reaches the manager's caches
// base+i*step after it was made. So the events of writes made in quick
// succession arrive step apart, each on its own (arriving together, the
// work queue would merge them into one reconcile), and every write the
// controller makes meanwhile is seen only after the lag of the last step.
// write returns the resource versions it wrote: the lag of a step is set
// only once the previous step's events have reached the proxy, which the
// server sends a little after answering the write.
func (e *rywEnv) staggered(t *testing.T, base, step time.Duration, steps int, write func(i int) ([]string, error)) {
	t.Helper()
	for i := range steps {
		e.lag.Set(base + time.Duration(i)*step)
		written, err := write(i)
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		for _, rv := range written {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := e.lag.AwaitEvent(ctx, rv)
			cancel()
			if err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
	}
}

// patchParent merge-patches the ConfigMap name with patch, without lag, and
// returns its new resource version.
func (e *rywEnv) patchParent(name, patch string) (string, error) {
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return "", err
	}
	return cm.ResourceVersion, nil
}

// createParent creates the ConfigMap cm, without lag, and returns its
// resource version.
func (e *rywEnv) createParent(cm *corev1.ConfigMap) (string, error) {
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(context.Background(), cm, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return cm.ResourceVersion, nil
}

// touch is a patch that changes a parent without changing what it wants.
func touch(i int) string { return fmt.Sprintf(`{"metadata":{"annotations":{"touched":"%d"}}}`, i) }

// childrenOnServer returns the names of parent's children as the API server
// has them.
func (e *rywEnv) childrenOnServer(t *testing.T, parent string) []string {
	t.Helper()
	l, err := e.cs.CoreV1().Secrets(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "parent=" + parent})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l.Items {
		names = append(names, s.Name)
	}
	return names
}

// metric returns the sample of name{controller=ctrl} in the manager's
// registry: a counter's value, or a histogram's sample count and sum.
func (e *rywEnv) metric(t *testing.T, name, ctrl string) (value float64, count uint64) {
	t.Helper()
	families, err := e.mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == ctrl {
					if h := m.GetHistogram(); h != nil {
						return h.GetSampleSum(), h.GetSampleCount()
					}
					return m.GetCounter().GetValue(), 0
				}
			}
		}
	}
	return 0, 0
}

// parentView is what a reconcile of a parent saw in the caches.
type parentView struct {
	rv       string   // the parent's resourceVersion
	children []string // the names of its children
}

// childMaker reconciles a parent ConfigMap into child Secrets (labelled
// parent=<name>, controlled by it, named by generateName): it creates one
// when it sees none and the parent does not say want=no, and deletes those
// it sees when the parent says want=no. A parent that says scratch=yes
// has it also create and delete a temporary Secret after each child. It
// reads both kinds from the caches, as every controller does, and counts
// what it did.
type childMaker struct {
	parents *client.Client[*corev1.ConfigMap]
	secrets *client.Client[*corev1.Secret]
	mgr     *manager.Manager

	mu      sync.Mutex
	views   map[string][]parentView // per parent, in reconcile order
	creates int
	deletes int
	gone    int // deletes answered NotFound: the child was deleted already
}

// newChildMaker wires a childMaker into e's manager as controller name,
// with opts, starts the manager and waits for its caches.
func newChildMaker(t *testing.T, e *rywEnv, name string, opts ...controller.Option) *childMaker {
	t.Helper()
	parents, err := client.For[*corev1.ConfigMap](e.mgr.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := client.For[*corev1.Secret](e.mgr.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	r := &childMaker{parents: parents, secrets: secrets, mgr: e.mgr, views: map[string][]parentView{}}
	err = builder.ControllerManagedBy(e.mgr).Named(name).
		For(builder.Kind(&corev1.ConfigMap{})).
		Owns(builder.Kind(&corev1.Secret{})).
		WithOptions(opts...).
		Complete(r)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, e.mgr.Start)
	testkit.Eventually(t, 10*time.Second, "the caches to sync", func() bool {
		return parents.Informer().HasSynced() && secrets.Informer().HasSynced()
	})
	return r
}

func (r *childMaker) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	p, err := r.parents.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	kids, err := r.secrets.List(ctx, client.InNamespace(req.Namespace), client.Matching(object.Selector{Labels: "parent=" + req.Name}))
	if err != nil {
		return reconcile.Result{}, err
	}
	view := parentView{rv: p.ResourceVersion}
	for _, k := range kids {
		view.children = append(view.children, k.Name)
	}
	r.record(func() { r.views[req.Name] = append(r.views[req.Name], view) })

	if p.Data["want"] == "no" {
		for _, k := range kids {
			err := r.secrets.Delete(ctx, k.Namespace, k.Name)
			switch {
			case apierrors.IsNotFound(err):
				r.record(func() { r.gone++ })
			case err != nil:
				return reconcile.Result{}, err
			default:
				r.record(func() { r.deletes++ })
			}
		}
		return reconcile.Result{}, nil
	}
	if len(kids) > 0 {
		return reconcile.Result{}, nil
	}
	child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, GenerateName: req.Name + "-",
		Labels: map[string]string{"parent": req.Name}}}
	if err := object.SetControllerReference(p, child, r.mgr.Cluster().Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	if _, err := r.secrets.Create(ctx, child); err != nil {
		return reconcile.Result{}, err
	}
	r.record(func() { r.creates++ })
	if p.Data["scratch"] == "yes" {
		tmp, err := r.secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, GenerateName: "scratch-"}})
		if err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, r.secrets.Delete(ctx, tmp.Namespace, tmp.Name)
	}
	return reconcile.Result{}, nil
}

func (r *childMaker) record(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}

// saw reports whether a reconcile of parent has seen it at resourceVersion
// rv ("" for any) with exactly the children ok accepts. The caches only
// move forward, so once one has, every later reconcile sees as much.
func (r *childMaker) saw(parent, rv string, ok func(children []string) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.views[parent], func(v parentView) bool {
		return (rv == "" || v.rv == rv) && ok(v.children)
	})
}

func (r *childMaker) counts() (creates, deletes, gone int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.creates, r.deletes, r.gone
}

func some(children []string) bool { return len(children) > 0 }

// A controller that creates a child when its cache shows none creates
// exactly one per parent with the gate on; with it off, each reconcile that
// runs before the cache shows the child creates another. A temporary
// object created and deleted after the child, which the cache never holds,
// does not let the next reconcile run before the cache shows the child.
func TestReadYourWritesOneChildPerParent(t *testing.T) {
	const lag, step, touches = time.Second, 200 * time.Millisecond, 4
	parents := []string{"p0", "p1", "p2"}
	for _, tc := range []struct{ gate, scratch bool }{{true, false}, {false, false}, {true, true}} {
		gate := tc.gate
		t.Run(fmt.Sprintf("gate=%t,scratch=%t", gate, tc.scratch), func(t *testing.T) {
			e := newRYWEnv(t)
			r := newChildMaker(t, e, "children", controller.WithReadYourWrites(gate))
			// The parents' creation, then touches: each step's events arrive
			// step after the one before, each a reconcile of every parent.
			e.staggered(t, lag, step, 1+touches, func(i int) ([]string, error) {
				var written []string
				for _, p := range parents {
					var rv string
					var err error
					if i == 0 {
						cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: p}}
						if tc.scratch {
							cm.Data = map[string]string{"scratch": "yes"}
						}
						rv, err = e.createParent(cm)
					} else {
						rv, err = e.patchParent(p, touch(i))
					}
					if err != nil {
						return nil, err
					}
					written = append(written, rv)
				}
				return written, nil
			})
			testkit.Eventually(t, 15*time.Second, "a reconcile of every parent that sees a child", func() bool {
				return !slices.ContainsFunc(parents, func(p string) bool { return !r.saw(p, "", some) })
			})
			// From here on no reconcile creates a child.
			perParent := map[string]int{}
			least, most := 0, 0
			for i, p := range parents {
				perParent[p] = len(e.childrenOnServer(t, p))
				if i == 0 || perParent[p] < least {
					least = perParent[p]
				}
				most = max(most, perParent[p])
			}
			held, _ := e.metric(t, "steady_reconcile_held_total", "children")
			timeouts, _ := e.metric(t, "steady_reconcile_hold_timeouts_total", "children")
			t.Logf("children per parent: %v; reconciles held: %v, hold timeouts: %v", perParent, held, timeouts)
			if gate {
				if least != 1 || most != 1 {
					t.Fatalf("children per parent %v, want exactly one each", perParent)
				}
				if held < float64(len(parents)) || timeouts != 0 {
					t.Fatalf("held %v, timeouts %v: want a hold per parent at least, no timeout", held, timeouts)
				}
				return
			}
			if most < 2 {
				t.Fatalf("children per parent %v with the gate off: want a duplicate, or this test shows nothing", perParent)
			}
			if held != 0 {
				t.Fatalf("%v reconciles held with the gate off", held)
			}
		})
	}
}

// A controller that deletes its child when the parent says so deletes it
// once with the gate on; with it off, the reconciles that run while the
// cache still shows the child delete it again (and get NotFound). Once
// the parent wants a child again, exactly one new child is created.
func TestReadYourWritesDeletedChild(t *testing.T) {
	const lag, step = time.Second, 200 * time.Millisecond
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("gate=%t", gate), func(t *testing.T) {
			e := newRYWEnv(t)
			r := newChildMaker(t, e, "children", controller.WithReadYourWrites(gate))
			// Settled first, without lag: the parent and its child, in the caches.
			if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the child in the cache", func() bool { return r.saw("p", "", some) })
			first := e.childrenOnServer(t, "p")
			if len(first) != 1 {
				t.Fatalf("children %v, want one", first)
			}

			// No child, for three steps; then a child again.
			patches := []string{`{"data":{"want":"no"}}`, touch(1), touch(2), `{"data":{"want":"yes"}}`, touch(3)}
			e.staggered(t, lag, step, len(patches), func(i int) ([]string, error) {
				rv, err := e.patchParent("p", patches[i])
				return []string{rv}, err
			})
			cur, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(context.Background(), "p", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 15*time.Second, "a reconcile that sees the last change and a new child", func() bool {
				return r.saw("p", cur.ResourceVersion, func(c []string) bool { return len(c) == 1 && c[0] != first[0] })
			})
			creates, deletes, gone := r.counts()
			now := e.childrenOnServer(t, "p")
			t.Logf("creates %d (the first included), deletes %d, deletes of a child already deleted %d; children now %v", creates, deletes, gone, now)
			if len(now) != 1 || now[0] == first[0] {
				t.Fatalf("children %v, want one new child (the first was %s)", now, first[0])
			}
			if creates != 2 || deletes != 1 {
				t.Fatalf("creates %d, deletes %d: want 2 (the first and its replacement) and 1", creates, deletes)
			}
			if gate && gone != 0 {
				t.Fatalf("the deleted child was deleted %d more times with the gate on", gone)
			}
			if !gate && gone == 0 {
				t.Fatal("no second delete with the gate off: the test shows nothing")
			}
		})
	}
}

// A cache that lags longer than WithReadYourWritesTimeout does not hold a
// request longer: it runs after the bound, on the cache as it is, and
// steady_reconcile_hold_timeouts_total counts it.
func TestReadYourWritesWaitBound(t *testing.T) {
	const lag, step, bound = 2 * time.Second, 300 * time.Millisecond, 500 * time.Millisecond
	e := newRYWEnv(t)
	r := newChildMaker(t, e, "children", controller.WithReadYourWritesTimeout(bound))
	e.staggered(t, lag, step, 2, func(i int) ([]string, error) {
		var rv string
		var err error
		if i == 0 {
			rv, err = e.createParent(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
		} else {
			rv, err = e.patchParent("p", touch(i))
		}
		return []string{rv}, err
	})
	// The touch's reconcile is held for the child the first one created;
	// after the bound it runs, on a cache without it, and creates another.
	testkit.Eventually(t, 10*time.Second, "a second child", func() bool { creates, _, _ := r.counts(); return creates == 2 })
	held, _ := e.metric(t, "steady_reconcile_held_total", "children")
	timeouts, _ := e.metric(t, "steady_reconcile_hold_timeouts_total", "children")
	holdSum, holds := e.metric(t, "steady_reconcile_hold_seconds", "children")
	t.Logf("held %v, timeouts %v, holds %d lasting %.3fs in all", held, timeouts, holds, holdSum)
	if held != 1 || timeouts != 1 || holds != 1 {
		t.Fatalf("held %v, hold timeouts %v, holds ended %d: want 1 each", held, timeouts, holds)
	}
	// Held for the bound, not for the lag: the cache shows the first
	// child only lag+step after it was created.
	if hold := time.Duration(holdSum * float64(time.Second)); hold < bound || hold >= lag {
		t.Fatalf("held %v, want the bound %v (and less than the lag %v)", hold, bound, lag)
	}
	if r.saw("p", "", some) {
		t.Fatal("a reconcile saw a child before the second was created: the cache did not lag")
	}
}
