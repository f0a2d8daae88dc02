package operatortest_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// A buggyCase is an operator with a bug that an ordinary test misses, its
// corrected twin, and the test steps both pass.
type buggyCase struct {
	name     string                                    // e.g. "finalizerless-cleanup"
	class    string                                    // the bug class in words
	buggy    func(*manager.Manager) error              // setup wiring the buggy controller
	fixed    func(*manager.Manager) error              // setup wiring the corrected one
	scenario func(t testing.TB, env *operatortest.Env) // the test's steps and checks
}

// Every setup func makes its client and reconciler, and whatever state the
// reconciler keeps, anew: exploration calls it again for each fresh
// manager, and a restarted manager must start with an empty memory, as a
// restarted process does.
var buggyCases = []buggyCase{
	{
		name:     "finalizerless-cleanup",
		class:    "clean-up that depends on seeing the deletion",
		buggy:    finalizerlessBuggy,
		fixed:    finalizerlessFixed,
		scenario: finalizerlessScenario,
	},
	{
		name:     "memory-state",
		class:    "state kept in memory instead of read from the cluster",
		buggy:    memoryStateBuggy,
		fixed:    memoryStateFixed,
		scenario: memoryStateScenario,
	},
	{
		name:     "intermediate-state",
		class:    "an intermediate state persisted and then trusted",
		buggy:    intermediateBuggy,
		fixed:    intermediateFixed,
		scenario: intermediateScenario,
	},
	{
		name:     "unconditional-overwrite",
		class:    "a write that replaces the object without a resourceVersion",
		buggy:    overwriteBuggy,
		fixed:    overwriteFixed,
		scenario: overwriteScenario,
	},
	{
		name:     "stale-cache",
		class:    "a decision to create taken on a count read from the cache",
		buggy:    staleCacheBuggy,
		fixed:    staleCacheFixed,
		scenario: staleCacheScenario,
	},
	{
		name:     "status-never-settles",
		class:    "a reconcile that writes on every run and so never settles",
		buggy:    unsettledBuggy,
		fixed:    unsettledFixed,
		scenario: unsettledScenario,
	},
}

// Each buggy operator passes the ordinary test of its case, as its
// corrected twin does: the bugs show only under faults.
func TestBuggyOperatorsPassOrdinaryTests(t *testing.T) {
	for _, c := range buggyCases {
		for _, v := range []struct {
			name  string
			setup func(*manager.Manager) error
		}{{"buggy", c.buggy}, {"fixed", c.fixed}} {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				env := operatortest.New(t, v.setup, builtIn)
				c.scenario(t, env)
			})
		}
	}
}

// The operators reconcile parent ConfigMaps (labelled explore-role=parent)
// and make child ConfigMaps labelled with their parent's name. They do not
// use owner references, so that nothing but the operator (no garbage
// collector, no Owns mapping) acts on a child.
const (
	roleLabel   = "explore-role"
	parentLabel = "explore-parent"

	cleanupFinalizer = "explore.steady.dev/cleanup"
	phaseKey         = "explore.steady.dev/phase"
	childrenKey      = "explore.steady.dev/children"
	lastReconciled   = "explore.steady.dev/last-reconciled"
	seenKey          = "explore.steady.dev/seen"
)

// controlParents wires r as the controller name of mgr, reconciling the
// namespace's parent ConfigMaps on each of their events.
func controlParents(mgr *manager.Manager, name string, r reconcile.Reconciler) error {
	isParent := predicate.NewFilter(func(cm *corev1.ConfigMap) bool { return cm.Labels[roleLabel] == "parent" })
	return builder.ControllerManagedBy(mgr).Named(name).
		For(builder.Kind(&corev1.ConfigMap{}, isParent)).
		Complete(r)
}

// configMaps is a client of the ConfigMaps in mgr's cache.
func configMaps(mgr *manager.Manager) (*client.Client[*corev1.ConfigMap], error) {
	return client.For[*corev1.ConfigMap](mgr.Factory(), "")
}

// newChild returns a child of parent named name, with data.
func newChild(parent *corev1.ConfigMap, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: parent.Namespace, Name: name, Labels: map[string]string{parentLabel: parent.Name}},
		Data:       data,
	}
}

// childrenOf selects the children of the parent named parent.
func childrenOf(parent string) client.ListOption {
	return client.Matching(object.Selector{Labels: parentLabel + "=" + parent})
}

// setAnnotations returns a Modify mutation that sets the annotations kv
// (key, value, key, value...).
func setAnnotations(kv ...string) func(*corev1.ConfigMap) error {
	return func(cm *corev1.ConfigMap) error {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			cm.Annotations[kv[i]] = kv[i+1]
		}
		return nil
	}
}

// 1. finalizerless-cleanup

// finalizerlessBuggy deletes a parent's child when a reconcile finds the
// parent gone. The deletion is seen only by a manager that runs when it
// happens: one that is down then (or restarts) never reconciles the gone
// parent, and the child leaks. An ordinary test deletes while it runs.
func finalizerlessBuggy(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "finalizerless-cleanup", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, client.IgnoreNotFound(cms.Delete(ctx, req.Namespace, req.Name+"-child"))
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		_, err = cms.Create(ctx, newChild(p, p.Name+"-child", nil))
		return reconcile.Result{}, client.IgnoreAlreadyExists(err)
	}))
}

// finalizerlessFixed holds the parent with a finalizer until its child is
// deleted, so the deletion waits for a manager to see it.
func finalizerlessFixed(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	r, err := finalizer.New(cms, cleanupFinalizer, finalizer.Funcs[*corev1.ConfigMap]{
		Apply: func(ctx context.Context, p *corev1.ConfigMap) (reconcile.Result, error) {
			_, err := cms.Create(ctx, newChild(p, p.Name+"-child", nil))
			return reconcile.Result{}, client.IgnoreAlreadyExists(err)
		},
		Cleanup: func(ctx context.Context, p *corev1.ConfigMap) (reconcile.Result, error) {
			return reconcile.Result{}, client.IgnoreNotFound(cms.Delete(ctx, p.Namespace, p.Name+"-child"))
		},
	})
	if err != nil {
		return err
	}
	return controlParents(mgr, "finalizerless-cleanup", r)
}

// finalizerlessScenario: a parent gets a child, which goes with it.
func finalizerlessScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", nil)
	testenv.Eventually(t, 10*time.Second, "p's child", exists(t, env, "p-child"))
	if err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Delete(t.Context(), "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "p and its child to be gone", func() error {
		if err := gone(t, env, "p"); err != nil {
			return err
		}
		return gone(t, env, "p-child")
	})
}

// 2. memory-state

// memoryStateBuggy remembers, in memory, the child it made for each parent,
// and deletes that one when data["child"] names another. A restart forgets
// it, and the old child leaks; an ordinary test never restarts.
func memoryStateBuggy(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	made := map[types.NamespacedName]string{} // parent → the child made for it
	return controlParents(mgr, "memory-state", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		want := p.Data["child"]
		mu.Lock()
		old := made[req.NamespacedName]
		mu.Unlock()
		if old != "" && old != want {
			if err := cms.Delete(ctx, req.Namespace, old); client.IgnoreNotFound(err) != nil {
				return reconcile.Result{}, err
			}
		}
		if _, err := cms.Create(ctx, newChild(p, want, nil)); client.IgnoreAlreadyExists(err) != nil {
			return reconcile.Result{}, err
		}
		mu.Lock()
		made[req.NamespacedName] = want
		mu.Unlock()
		return reconcile.Result{}, nil
	}))
}

// memoryStateFixed finds the parent's children by their label, and deletes
// those it no longer names.
func memoryStateFixed(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "memory-state", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		want := p.Data["child"]
		if _, err := cms.Create(ctx, newChild(p, want, nil)); client.IgnoreAlreadyExists(err) != nil {
			return reconcile.Result{}, err
		}
		children, err := cms.List(ctx, client.InNamespace(req.Namespace), childrenOf(p.Name))
		if err != nil {
			return reconcile.Result{}, err
		}
		for _, c := range children {
			if c.Name == want {
				continue
			}
			if err := cms.Delete(ctx, c.Namespace, c.Name); client.IgnoreNotFound(err) != nil {
				return reconcile.Result{}, err
			}
		}
		return reconcile.Result{}, nil
	}))
}

// memoryStateScenario: the parent's child follows the name it gives.
func memoryStateScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", map[string]string{"child": "a"})
	testenv.Eventually(t, 10*time.Second, "child a", exists(t, env, "a"))
	patchData(t, env, "p", "child", "b")
	testenv.Eventually(t, 10*time.Second, "child b, and a gone", func() error {
		if err := exists(t, env, "b")(); err != nil {
			return err
		}
		return gone(t, env, "a")
	})
}

// 3. intermediate-state

// intermediateBuggy marks the parent Creating before it creates the child,
// Ready after, and leaves alone a parent marked Creating, trusting that
// another worker is at it. A crash between the two marks leaves the parent
// stuck at Creating; without a crash, Creating is never seen.
func intermediateBuggy(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "intermediate-state", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if phase := p.Annotations[phaseKey]; phase == "Creating" || phase == "Ready" {
			return reconcile.Result{}, nil
		}
		if p, err = cms.Modify(ctx, p.Namespace, p.Name, setAnnotations(phaseKey, "Creating")); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if _, err := cms.Create(ctx, newChild(p, p.Name+"-child", nil)); err != nil {
			return reconcile.Result{}, err
		}
		_, err = cms.Modify(ctx, p.Namespace, p.Name, setAnnotations(phaseKey, "Ready"))
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// intermediateFixed derives the phase from the child, whatever the phase
// says: it makes sure the child exists, then marks the parent Ready.
func intermediateFixed(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "intermediate-state", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if _, err := cms.Create(ctx, newChild(p, p.Name+"-child", nil)); client.IgnoreAlreadyExists(err) != nil {
			return reconcile.Result{}, err
		}
		_, err = cms.Modify(ctx, p.Namespace, p.Name, setAnnotations(phaseKey, "Ready"))
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// intermediateScenario: the parent gets its child and is marked Ready.
func intermediateScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", nil)
	testenv.Eventually(t, 10*time.Second, "p's child, and p Ready", func() error {
		if err := exists(t, env, "p-child")(); err != nil {
			return err
		}
		return annotation(t, env, "p", phaseKey, "Ready")
	})
}

// 4. unconditional-overwrite

// overwriteBuggy builds the child from scratch and updates it without a
// resourceVersion, which the API server accepts for ConfigMaps as an
// unconditional replace: a label or annotation someone else put on the
// child meanwhile is silently dropped. An ordinary test has no one else.
func overwriteBuggy(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "unconditional-overwrite", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		want := newChild(p, p.Name+"-child", map[string]string{"value": p.Data["value"]})
		current, err := cms.Get(ctx, want.Namespace, want.Name)
		switch {
		case apierrors.IsNotFound(err):
			_, err = cms.Create(ctx, want)
		case err == nil && current.Data["value"] != want.Data["value"]:
			_, err = cms.Update(ctx, want) // no resourceVersion: replaces whatever is stored
		}
		return reconcile.Result{}, err
	}))
}

// overwriteFixed changes the child's data["value"] only, by read, change
// and write with the resourceVersion read, again on conflict
// (CreateOrUpdate, that is Modify for an existing child).
func overwriteFixed(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "unconditional-overwrite", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		_, _, err = cms.CreateOrUpdate(ctx, newChild(p, p.Name+"-child", nil), func(c *corev1.ConfigMap) error {
			if c.Data == nil {
				c.Data = map[string]string{}
			}
			c.Data["value"] = p.Data["value"]
			return nil
		})
		return reconcile.Result{}, err
	}))
}

// overwriteScenario: the child's value follows the parent's.
func overwriteScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", map[string]string{"value": "1"})
	testenv.Eventually(t, 10*time.Second, "p's child with value 1", childValue(t, env, "p-child", "1"))
	patchData(t, env, "p", "value", "2")
	testenv.Eventually(t, 10*time.Second, "p's child with value 2", childValue(t, env, "p-child", "2"))
}

// 5. stale-cache

// staleCacheBuggy keeps each parent's credentials in a Secret: it counts
// the parent's Secrets in the cache and, if there are none, creates one
// under a generated name, then records the count on the parent. When the
// Secrets' watch lags, the reconcile that the parent's annotation brings
// back finds none in the cache and makes a second. An ordinary test never
// sees it: steady holds a request until its cache shows the request's
// own writes, and a local watch never lags longer than that bound.
func staleCacheBuggy(mgr *manager.Manager) error {
	cms, secrets, err := parentsAndSecrets(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "stale-cache", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		have, err := secrets.List(ctx, client.InNamespace(req.Namespace), childrenOf(p.Name))
		if err != nil {
			return reconcile.Result{}, err
		}
		n := len(have)
		if n < 1 {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, GenerateName: p.Name + "-",
				Labels: map[string]string{parentLabel: p.Name}}}
			if _, err := secrets.Create(ctx, s); err != nil {
				return reconcile.Result{}, err
			}
			n++
		}
		_, err = cms.Modify(ctx, p.Namespace, p.Name, setAnnotations(childrenKey, strconv.Itoa(n)))
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// staleCacheFixed names the Secret after its parent, so that a second
// create fails with AlreadyExists whatever the cache shows.
func staleCacheFixed(mgr *manager.Manager) error {
	cms, secrets, err := parentsAndSecrets(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "stale-cache", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, err := cms.Get(ctx, req.Namespace, req.Name)
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name + "-credentials",
			Labels: map[string]string{parentLabel: p.Name}}}
		if _, err := secrets.Create(ctx, s); client.IgnoreAlreadyExists(err) != nil {
			return reconcile.Result{}, err
		}
		_, err = cms.Modify(ctx, p.Namespace, p.Name, setAnnotations(childrenKey, "1"))
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// parentsAndSecrets returns clients of the parents and of Secrets.
func parentsAndSecrets(mgr *manager.Manager) (*client.Client[*corev1.ConfigMap], *client.Client[*corev1.Secret], error) {
	cms, err := configMaps(mgr)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := client.For[*corev1.Secret](mgr.Factory(), "")
	return cms, secrets, err
}

// staleCacheScenario: the parent gets exactly one Secret, and says so.
func staleCacheScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", nil)
	testenv.Eventually(t, 10*time.Second, "one Secret of p, and p counting it", func() error {
		list, err := env.Clientset.CoreV1().Secrets(env.Namespace).List(t.Context(), metav1.ListOptions{LabelSelector: parentLabel + "=p"})
		if err != nil {
			return err
		}
		if n := len(list.Items); n != 1 {
			return fmt.Errorf("p has %d Secrets", n)
		}
		return annotation(t, env, "p", childrenKey, "1")
	})
}

// 6. status-never-settles

// unsettledBuggy stamps the parent with the time on every reconcile, and
// every stamp is an update event that reconciles the parent again: it never
// stops writing. An ordinary test checks the result (seen), which is right.
func unsettledBuggy(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "status-never-settles", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		_, err := cms.Modify(ctx, req.Namespace, req.Name, func(p *corev1.ConfigMap) error {
			return setAnnotations(seenKey, p.Data["value"], lastReconciled, time.Now().Format(time.RFC3339Nano))(p)
		})
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// unsettledFixed records only what it saw, which Modify writes only when it
// changed.
func unsettledFixed(mgr *manager.Manager) error {
	cms, err := configMaps(mgr)
	if err != nil {
		return err
	}
	return controlParents(mgr, "status-never-settles", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		_, err := cms.Modify(ctx, req.Namespace, req.Name, func(p *corev1.ConfigMap) error {
			return setAnnotations(seenKey, p.Data["value"])(p)
		})
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}))
}

// unsettledScenario: the parent records the value it was seen with.
func unsettledScenario(t testing.TB, env *operatortest.Env) {
	createParent(t, env, "p", map[string]string{"value": "1"})
	testenv.Eventually(t, 10*time.Second, "p seen with value 1", func() error {
		return annotation(t, env, "p", seenKey, "1")
	})
}

// The scenarios' steps and checks, through the test's client-go clientset
// only: they must not depend on the manager, which exploration stops and
// replaces.

// createParent creates the parent ConfigMap name with data.
func createParent(t testing.TB, env *operatortest.Env, name string, data map[string]string) {
	t.Helper()
	p := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{roleLabel: "parent"}}, Data: data}
	if _, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// patchData sets data[key] of ConfigMap name to value, with a merge patch.
func patchData(t testing.TB, env *operatortest.Env, name, key, value string) {
	t.Helper()
	patch := fmt.Sprintf(`{"data":{%q:%q}}`, key, value)
	if _, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// exists is a condition that ConfigMap name exists.
func exists(t testing.TB, env *operatortest.Env, name string) func() error {
	return func() error {
		_, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Get(t.Context(), name, metav1.GetOptions{})
		return err
	}
}

// gone says whether ConfigMap name is gone: nil if so.
func gone(t testing.TB, env *operatortest.Env, name string) error {
	_, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Get(t.Context(), name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err == nil:
		return fmt.Errorf("%s still exists", name)
	}
	return err
}

// annotation says whether ConfigMap name has annotation key=value: nil if so.
func annotation(t testing.TB, env *operatortest.Env, name, key, value string) error {
	cm, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err == nil && cm.Annotations[key] != value {
		err = fmt.Errorf("%s has %s=%q, want %q", name, key, cm.Annotations[key], value)
	}
	return err
}

// childValue is a condition that ConfigMap name has data["value"] = value.
func childValue(t testing.TB, env *operatortest.Env, name, value string) func() error {
	return func() error {
		cm, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Get(t.Context(), name, metav1.GetOptions{})
		if err == nil && cm.Data["value"] != value {
			err = fmt.Errorf("%s has value %q, want %q", name, cm.Data["value"], value)
		}
		return err
	}
}
