package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/informer"
)

// A controller has just updated web-1, and the API server answered with
// resourceVersion 12. Reconciling web-1 again before the cache holds that
// update would act on the state before it; WhenProcessed says when the
// cache has caught up, with no polling. A watch bookmark moves the cache
// forward too, with no change to any pod.
func ExampleInformer_WhenProcessed() {
	lw := podLW(pod("web-1", "node-a", "8")) // listed at resourceVersion 10
	pods, err := informer.New[*corev1.Pod](lw, informer.WithName("pods"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- pods.Start(ctx) }()
	defer func() { cancel(); <-stopped }()
	if err := pods.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	w := <-lw.watches // this example plays the API server

	const written = "12" // what the update returned
	caughtUp := make(chan struct{})
	_, waiting := pods.WhenProcessed("shop", written, func() { close(caughtUp) })
	fmt.Println("waiting:", waiting, "- processed:", pods.HasProcessed("shop", written))

	running := pod("web-1", "node-a", written)
	running.Status.Phase = corev1.PodRunning
	w.Modify(running) // the watch delivers the update
	<-caughtUp
	p, _ := pods.Cache().Get("shop", "web-1")
	fmt.Println("cached:", p.Status.Phase, "at", p.ResourceVersion, "- processed:", pods.HasProcessed("shop", written))

	quiet := make(chan struct{})
	pods.WhenProcessed("shop", "15", func() { close(quiet) })
	w.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "15"}})
	<-quiet
	fmt.Println("after a bookmark:", pods.Progress().ResourceVersion)
	// Output:
	// waiting: true - processed: false
	// cached: Running at 12 - processed: true
	// after a bookmark: 15
}
