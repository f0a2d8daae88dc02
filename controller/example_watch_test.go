package controller_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/reconcile"
)

// configMapLW lists fixed ConfigMaps and then watches without news: the
// example runs without an API server.
type configMapLW []string

func (l configMapLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, name := range l {
		list.Items = append(list.Items, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: "1"}})
	}
	return list, nil
}

func (configMapLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// A watch added to a running controller, and removed again. The controller
// reconciles what the new source lists as soon as it is watched; Unwatch
// stops its events, and, for an informer of a Factory, releases the
// informer once no other handler uses it.
func ExampleController_Unwatch() {
	reconciled := make(chan string, 10)
	c, err := controller.New("settings", reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		reconciled <- req.String()
		return reconcile.Result{}, nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = c.Watch(requests{"boot"})
	cms, err := informer.New[*corev1.ConfigMap](configMapLW{"web", "db"}, informer.WithName("configmaps"))
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = cms.Start(ctx) })
	wg.Go(func() { _ = c.Start(ctx) })
	defer func() { cancel(); wg.Wait() }()
	fmt.Println("running:", <-reconciled)

	src := controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())
	if err := c.Watch(src); err != nil { // attached at once, not waited for...
		fmt.Println(err)
		return
	}
	if err := informer.WaitForCacheSync(ctx, src); err != nil { // ...unless you wait
		fmt.Println(err)
		return
	}
	got := []string{<-reconciled, <-reconciled}
	slices.Sort(got)
	fmt.Println("watched:", got)

	fmt.Println("unwatch:", c.Unwatch(src))
	fmt.Println("again:", c.Unwatch(src))
	// Output:
	// running: shop/boot
	// watched: [shop/db shop/web]
	// unwatch: <nil>
	// again: controller settings: Unwatch(configmaps): not watched
}
