package controller_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/reflector"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// statusWriter reconciles a Deployment by writing its status every time,
// the pattern that loops without a predicate.
func statusWriter(cs kubernetes.Interface, ns string, count *atomic.Int32) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		n := count.Add(1)
		_, err := update(ctx, cs.AppsV1().Deployments(ns).Get, cs.AppsV1().Deployments(ns).UpdateStatus, req.Name, func(d *appsv1.Deployment) error {
			d.Status.ObservedGeneration = d.Generation
			d.Status.Conditions = []appsv1.DeploymentCondition{{
				Type: "Reconciled", Status: corev1.ConditionTrue, Message: fmt.Sprintf("reconcile %d", n)}}
			return nil
		})
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	})
}

// TestGenerationChangedBreaksTheStatusLoop is the tutorial's lesson: the same
// reconciler settles with GenerationChanged and loops without it.
func TestGenerationChangedBreaksTheStatusLoop(t *testing.T) {
	for _, tc := range []struct {
		name      string
		preds     []predicate.Predicate[*appsv1.Deployment]
		wantLoops bool
	}{
		{"with GenerationChanged", []predicate.Predicate[*appsv1.Deployment]{predicate.GenerationChanged[*appsv1.Deployment]()}, false},
		{"without a predicate", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, cs := testkit.Namespace(t, "ctrl-"), testkit.Clientset(t)
			var count atomic.Int32
			inf, err := informer.New[*appsv1.Deployment](reflector.FromClient(cs.AppsV1().Deployments(ns)), informer.WithName("deployments"))
			if err != nil {
				t.Fatal(err)
			}
			c, err := controller.New("status-"+ns, statusWriter(cs, ns, &count))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Watch(controller.Informer(inf, handler.EnqueueObject[*appsv1.Deployment](), tc.preds...)); err != nil {
				t.Fatal(err)
			}
			testkit.Run(t, inf.Start, c.Start)
			d, err := cs.AppsV1().Deployments(ns).Create(context.Background(), testkit.Deployment(ns, "web"), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Wait for the first reconcile's status write, so that it cannot
			// read the spec change below and reconcile it early.
			testkit.Eventually(t, 30*time.Second, "the first reconcile's status write", func() bool {
				cur, err := cs.AppsV1().Deployments(ns).Get(context.Background(), d.Name, metav1.GetOptions{})
				return err == nil && cur.Status.ObservedGeneration == 1
			})
			// A spec change must reconcile again in both cases.
			_, err = update(context.Background(), cs.AppsV1().Deployments(ns).Get, cs.AppsV1().Deployments(ns).Update, d.Name, func(d *appsv1.Deployment) error {
				d.Spec.Template.Spec.Containers[0].Image = "example.invalid/app:2"
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantLoops {
				testkit.Eventually(t, 30*time.Second, "the status-write loop to show", func() bool { return count.Load() >= 20 })
				return
			}
			testkit.Eventually(t, 30*time.Second, "the spec change to be reconciled", func() bool {
				cur, err := cs.AppsV1().Deployments(ns).Get(context.Background(), d.Name, metav1.GetOptions{})
				return err == nil && cur.Status.ObservedGeneration == cur.Generation && cur.Generation == 2
			})
			settled := count.Load()
			time.Sleep(500 * time.Millisecond) // a loop would reconcile dozens of times here
			if n := count.Load(); n > 3 || n != settled {
				t.Fatalf("with GenerationChanged: %d reconciles (%d when settled), want one per spec change", n, settled)
			}
		})
	}
}

func TestOwnedObjectsReconcileTheirOwner(t *testing.T) {
	ns, cs := testkit.Namespace(t, "ctrl-"), testkit.Clientset(t)
	reconciled := make(chan string, 100)
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		reconciled <- req.String()
		return reconcile.Result{}, nil
	})
	cms, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(ns)), informer.WithName("configmaps"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := controller.New("owner-"+ns, r)
	_ = c.Watch(controller.Informer(cms, handler.EnqueueOwner[*corev1.ConfigMap](schema.GroupKind{Group: "apps", Kind: "Deployment"}, handler.OnlyController())))
	testkit.Run(t, cms.Start, c.Start)

	owner, err := cs.AppsV1().Deployments(ns).Create(context.Background(), testkit.Deployment(ns, "web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "Deployment", Name: owner.Name, UID: owner.UID, Controller: &yes}}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), child, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-reconciled:
		if got != ns+"/web" {
			t.Fatalf("reconciled %s, want the owner %s/web", got, ns)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a change to an owned ConfigMap did not reconcile its Deployment")
	}
}

// TestFinalizerDeletionReachesReconciler shows what kube-apiserver does with
// generation when deletion starts, and that GenerationChanged lets that
// update through either way.
func TestFinalizerDeletionReachesReconciler(t *testing.T) {
	ns, cs := testkit.Namespace(t, "ctrl-"), testkit.Clientset(t)
	const finalizer = "steady.dev/cleanup"
	ctx := context.Background()
	cleaned := make(chan string, 10)

	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, req.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		if err != nil || cm.DeletionTimestamp == nil {
			return reconcile.Result{}, err
		}
		_, err = update(ctx, cs.CoreV1().ConfigMaps(ns).Get, cs.CoreV1().ConfigMaps(ns).Update, req.Name, func(cm *corev1.ConfigMap) error {
			cm.Finalizers = slices.DeleteFunc(cm.Finalizers, func(f string) bool { return f == finalizer })
			return nil
		})
		if err == nil {
			cleaned <- req.Name
		}
		return reconcile.Result{}, err
	})
	cms, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(ns)))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := controller.New("finalizer-"+ns, r)
	_ = c.Watch(controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap](), predicate.GenerationChanged[*corev1.ConfigMap]()))
	testkit.Run(t, cms.Start, c.Start)

	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "guarded", Finalizers: []string{finalizer}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cleaned:
	case <-time.After(30 * time.Second):
		t.Fatal("deletion of a finalized ConfigMap never reached the reconciler under GenerationChanged")
	}
	testkit.Eventually(t, 30*time.Second, "the ConfigMap to disappear", func() bool {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// TestDeletionGenerationBehaviour records what kube-apiserver does to
// metadata.generation when it sets deletionTimestamp on an object held by a
// finalizer: it bumps it for kinds that track generation, and leaves 0 alone.
func TestDeletionGenerationBehaviour(t *testing.T) {
	ns, cs := testkit.Namespace(t, "ctrl-"), testkit.Clientset(t)
	ctx := context.Background()
	const finalizer = "steady.dev/hold"
	d := testkit.Deployment(ns, "held")
	d.Finalizers = []string{finalizer}
	d, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{finalizer}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.AppsV1().Deployments(ns).Delete(ctx, d.Name, metav1.DeleteOptions{})
	_ = cs.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{})
	d2, _ := cs.AppsV1().Deployments(ns).Get(ctx, d.Name, metav1.GetOptions{})
	cm2, _ := cs.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
	if d2.DeletionTimestamp == nil || d2.Generation != d.Generation+1 {
		t.Fatalf("Deployment: generation %d -> %d, deletionTimestamp %v; want a bump", d.Generation, d2.Generation, d2.DeletionTimestamp)
	}
	if cm2.DeletionTimestamp == nil || cm2.Generation != 0 || cm.Generation != 0 {
		t.Fatalf("ConfigMap: generation %d -> %d; want 0 throughout", cm.Generation, cm2.Generation)
	}
	p := predicate.GenerationChanged[*corev1.ConfigMap]()
	if !p.Update(eventUpdate(cm, cm2)) {
		t.Fatal("GenerationChanged hides the start of a ConfigMap's deletion")
	}
	for _, name := range []string{"held"} { // release the finalizers
		_, _ = update(ctx, cs.AppsV1().Deployments(ns).Get, cs.AppsV1().Deployments(ns).Update, name, func(d *appsv1.Deployment) error { d.Finalizers = nil; return nil })
		_, _ = update(ctx, cs.CoreV1().ConfigMaps(ns).Get, cs.CoreV1().ConfigMaps(ns).Update, name, func(c *corev1.ConfigMap) error { c.Finalizers = nil; return nil })
	}
}

func TestNoKeyIsReconciledConcurrently(t *testing.T) {
	ns, cs := testkit.Namespace(t, "ctrl-"), testkit.Clientset(t)
	var mu sync.Mutex
	inFlight := map[string]bool{}
	var overlaps, maxParallel, parallel atomic.Int32
	var total atomic.Int32
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		mu.Lock()
		if inFlight[req.Name] {
			overlaps.Add(1)
		}
		inFlight[req.Name] = true
		mu.Unlock()
		if p := parallel.Add(1); p > maxParallel.Load() {
			maxParallel.Store(p)
		}
		time.Sleep(20 * time.Millisecond) // a slow reconciler
		parallel.Add(-1)
		mu.Lock()
		inFlight[req.Name] = false
		mu.Unlock()
		total.Add(1)
		return reconcile.Result{}, nil
	})
	cms, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(ns)))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := controller.New("parallel-"+ns, r, controller.WithMaxConcurrentReconciles(8))
	_ = c.Watch(controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]()))
	testkit.Run(t, cms.Start, c.Start)

	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			name := "key-" + strconv.Itoa(i)
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
				t.Error(err)
				return
			}
			for j := range 15 { // updates while the key is being reconciled
				_, err := update(ctx, cs.CoreV1().ConfigMaps(ns).Get, cs.CoreV1().ConfigMaps(ns).Update, name, func(cm *corev1.ConfigMap) error {
					cm.Data = map[string]string{"n": strconv.Itoa(j)}
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	testkit.Eventually(t, 30*time.Second, "reconciles to drain", func() bool { return total.Load() >= 16 && parallel.Load() == 0 })
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("%d reconciles overlapped with another of the same key", n)
	}
	if maxParallel.Load() < 2 {
		t.Fatalf("never more than %d reconciles at once: the test proves nothing", maxParallel.Load())
	}
}

// update is a read-modify-write that retries conflicts, written with
// client-go's clientset so these tests do not depend on package client.
// It outlasts a controller that rewrites the object in a loop (client-go's
// DefaultBackoff gives up after four tries 10ms apart, which such a loop
// beats now and then), with jitter so that it falls between two writes.
func update[T runtime.Object](ctx context.Context,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	write func(context.Context, T, metav1.UpdateOptions) (T, error),
	name string, mutate func(T) error) (T, error) {
	var out T
	backoff := wait.Backoff{Steps: 30, Duration: 5 * time.Millisecond, Factor: 1.3, Jitter: 1, Cap: 500 * time.Millisecond}
	err := retry.RetryOnConflict(backoff, func() error {
		obj, err := get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := mutate(obj); err != nil {
			return err
		}
		out, err = write(ctx, obj, metav1.UpdateOptions{})
		return err
	})
	return out, err
}
