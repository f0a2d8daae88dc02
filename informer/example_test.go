package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// exampleLW lists a fixed list and hands each watch to the example, which
// plays the API server on it.
type exampleLW struct {
	list    *corev1.ConfigMapList
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
	inf := informer.New[*corev1.ConfigMap](lw, informer.WithName("configmaps"))
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
