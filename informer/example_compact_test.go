package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/informer"
)

// Caches are compact by default: a compact cache keeps its objects
// encoded and decodes one for every read, so the object read is the
// reader's own, to change without DeepCopy. WithCompact(false) keeps
// decoded objects shared instead (for a Factory, every kind's;
// KindOptions.Shared, one kind's).
func ExampleWithCompact() {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.ConfigMap{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prices", ResourceVersion: "1"},
		Data:       map[string]string{"apple": "1.20"},
	}}}
	lw := exampleLW{list: list, watches: make(chan *watch.FakeWatcher, 1)}
	inf, err := informer.New[*corev1.ConfigMap](lw, informer.WithName("configmaps"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- inf.Start(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		fmt.Println(err)
	}

	prices, _ := inf.Cache().Get("shop", "prices")
	prices.Data["apple"] = "0.99" // ours: the cache is not changed
	again, _ := inf.Cache().Get("shop", "prices")
	fmt.Println("compact:", inf.Cache().Compact())
	fmt.Println("changed copy:", prices.Data["apple"], "cached:", again.Data["apple"])
	cancel()
	<-stopped
	// Output:
	// compact: true
	// changed copy: 0.99 cached: 1.20
}
