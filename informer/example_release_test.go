package informer_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// A factory's informer lives while it has handlers: removing the last one
// stops it and empties its cache, and Current returns the informer to use
// from then on, a fresh one that lists everything again. (It needs an API
// server, so it has no output.)
func ExampleInformer_Current() {
	var f *informer.Factory // a manager's Factory(), or informer.NewFactory
	pods, err := informer.For[*corev1.Pod](f, "", object.Selector{})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := pods.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
		CreateFunc: func(e event.Create[*corev1.Pod]) { fmt.Println("pod", e.Object.Name) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// ... later, when nothing needs pods any more:
	reg.Remove()
	fmt.Println(pods.Released()) // true: stopped, forgotten by the factory, its cache emptied

	pods, err = pods.Current() // when pods are needed again: a fresh informer
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = pods.AddHandler(informer.HandlerFuncs[*corev1.Pod]{})
	fmt.Println(err)
}
