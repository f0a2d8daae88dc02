package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// exampleLW lists a fixed list (such as a *corev1.PodList) and hands each
// watch to the example, which plays the API server on it: the examples run
// without one.
type exampleLW struct {
	list    runtime.Object
	watches chan *watch.FakeWatcher
}

func (l exampleLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return l.list, nil
}

func (l exampleLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFake()
	l.watches <- w
	return w, nil
}

// A handler receives package event's types; a deletion names its object
// by a types.NamespacedName even if its last state were unknown.
func ExampleHandlerFuncs() {
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: rv}}
	}
	lw := exampleLW{
		list:    &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.ConfigMap{*cm("prices", "1")}},
		watches: make(chan *watch.FakeWatcher, 1),
	}
	inf, err := informer.New[*corev1.ConfigMap](lw, informer.WithName("configmaps"))
	if err != nil {
		fmt.Println(err)
		return
	}
	deleted := make(chan struct{})
	reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		CreateFunc: func(e event.Create[*corev1.ConfigMap]) {
			fmt.Println("create", object.Key(e.Object), "from the initial list:", e.IsInInitialList)
		},
		DeleteFunc: func(e event.Delete[*corev1.ConfigMap]) {
			fmt.Printf("delete %q in namespace %q, final state unknown: %v\n", e.Key.Name, e.Key.Namespace, e.DeleteStateUnknown)
			close(deleted)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- inf.Start(ctx) }()

	// Informers and registrations are both Syncers.
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		fmt.Println(err)
	}
	w := <-lw.watches
	w.Add(cm("discounts", "2"))
	w.Delete(cm("prices", "3"))
	<-deleted
	cancel()
	<-stopped
	// Output:
	// create shop/prices from the initial list: true
	// create shop/discounts from the initial list: false
	// delete "prices" in namespace "shop", final state unknown: false
}

func pod(name, node, rv string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: rv},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

// podLW is an exampleLW whose list holds pods at resourceVersion 10.
func podLW(pods ...*corev1.Pod) exampleLW {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
	for _, p := range pods {
		list.Items = append(list.Items, *p)
	}
	return exampleLW{list: list, watches: make(chan *watch.FakeWatcher, 1)}
}

// The layers under a manager, wired by hand: an informer over a
// ListerWatcher (reflector.FromClient over a clientset, in a real program),
// an index, a handler, and reads of the cache, through its own methods and
// through a client-go lister. A manager and package client do all this for
// you; this is what they do.
func Example() {
	lw := podLW(pod("web-1", "node-a", "8"), pod("web-2", "node-b", "9"))
	pods, err := informer.New[*corev1.Pod](lw, informer.WithName("pods"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// An index answers "which pods run on node-a?" from memory, as a field
	// selector on spec.nodeName would from the API server.
	err = pods.AddIndex("node", func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	// The handler runs on a goroutine of its own; it passes what it sees
	// to this one, which prints it.
	seen := make(chan string, 10)
	_, err = pods.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
		CreateFunc: func(e event.Create[*corev1.Pod]) { seen <- "create " + e.Object.Name },
		UpdateFunc: func(e event.Update[*corev1.Pod]) {
			seen <- fmt.Sprintf("update %s: %s -> %s", e.ObjectNew.Name, e.ObjectOld.Status.Phase, e.ObjectNew.Status.Phase)
		},
		DeleteFunc: func(e event.Delete[*corev1.Pod]) { seen <- "delete " + e.Key.Name },
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- pods.Start(ctx) }()
	defer func() { cancel(); <-stopped }() // Start returns once its handlers have stopped too

	// Until the first list is cached, a missing pod may just not be
	// listed yet: wait before trusting the cache.
	if err := pods.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-seen)
	fmt.Println(<-seen)

	w := <-lw.watches
	w.Add(pod("web-3", "node-a", "11"))
	fmt.Println(<-seen)
	running := pod("web-1", "node-a", "12")
	running.Status.Phase = corev1.PodRunning
	w.Modify(running)
	fmt.Println(<-seen)
	w.Delete(pod("web-2", "node-b", "13"))
	fmt.Println(<-seen)

	// A change reaches the cache before any handler hears of it, so the
	// cache holds everything printed so far.
	onA, _ := pods.Cache().ByIndex("node", "node-a")
	fmt.Println("on node-a:", names(onA))

	lister := corev1listers.NewPodLister(pods.Cache().Indexer())
	web1, err := lister.Pods("shop").Get("web-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := lister.List(labels.Everything())
	fmt.Println("lister:", web1.Name, web1.Status.Phase, "of", names(all))
	// Output:
	// create web-1
	// create web-2
	// create web-3
	// update web-1: Pending -> Running
	// delete web-2
	// on node-a: [web-1 web-3]
	// lister: web-1 Running of [web-1 web-3]
}

// names returns the sorted names of pods (the cache has no order).
func names(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// forbiddenLW is refused every list, as an operator whose RBAC role lacks
// "list pods" is.
type forbiddenLW struct{}

func (forbiddenLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return nil, apierrors.NewForbidden(corev1.Resource("pods"), "",
		errors.New(`User "system:serviceaccount:shop:operator" cannot list resource "pods"`))
}

func (forbiddenLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errors.New("never asked: there is no list to watch from")
}

// WaitForSync does not wait out an error that retrying will not fix: a
// list forbidden by RBAC ends the wait at once, with an error that says
// why, instead of a timeout minutes later that does not. The informer
// itself keeps retrying, for the day the role is fixed.
func ExampleInformer_WaitForSync() {
	pods, err := informer.New[*corev1.Pod](forbiddenLW{}, informer.WithName("pods"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	stopped := make(chan error)
	go func() { stopped <- pods.Start(ctx) }()
	defer func() { cancel(); <-stopped }()

	err = pods.WaitForSync(ctx)
	fmt.Println(err)
	fmt.Println("not synced:", errors.Is(err, informer.ErrNotSynced), "- read as a missing pod:", apierrors.IsNotFound(err))
	// Output:
	// informer pods: cache did not sync: cannot list: list: pods is forbidden: User "system:serviceaccount:shop:operator" cannot list resource "pods"
	// not synced: true - read as a missing pod: false
}

// A controller without a manager: an informer, a controller whose source
// is that informer, both started until ctx ends. The reconciler is told
// which object to look at, not what happened to it, and reads the current
// state from the cache: a deleted pod is simply no longer there.
func Example_controllerWithoutManager() {
	lw := podLW(pod("web-1", "node-a", "8"), pod("web-2", "node-b", "9"))
	pods, err := informer.New[*corev1.Pod](lw, informer.WithName("pods"))
	if err != nil {
		fmt.Println(err)
		return
	}

	reconciled := make(chan string, 10)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, ok := pods.Cache().Get(req.Namespace, req.Name)
		if !ok {
			reconciled <- fmt.Sprintf("reconcile %s: gone", req)
			return reconcile.Result{}, nil
		}
		reconciled <- fmt.Sprintf("reconcile %s: on %s", req, p.Spec.NodeName)
		return reconcile.Result{}, nil
	})
	ctrl, err := controller.New("pods", r)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ctrl.Watch(controller.Informer(pods, handler.EnqueueObject[*corev1.Pod]())); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = pods.Start(ctx) })
	wg.Go(func() { _ = ctrl.Start(ctx) }) // waits for the informer's first list
	defer func() { cancel(); wg.Wait() }()

	fmt.Println(<-reconciled)
	fmt.Println(<-reconciled)
	w := <-lw.watches
	w.Add(pod("web-3", "node-a", "11"))
	fmt.Println(<-reconciled)
	w.Delete(pod("web-2", "node-b", "12"))
	fmt.Println(<-reconciled)
	// Output:
	// reconcile shop/web-1: on node-a
	// reconcile shop/web-2: on node-b
	// reconcile shop/web-3: on node-a
	// reconcile shop/web-2: gone
}
