package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/informer"
)

// One replica of three caches its third of the pods: those whose uid
// hashes into its range. This ListerWatcher, like a server without the
// ShardedListAndWatch feature gate, ignores the selector, so the informer
// drops the other pods itself (ShardMode "client"); a server with the gate
// sends only the shard ("server"). The cache is the same either way.
func ExampleInformer_SetShardSelector() {
	var all []*corev1.Pod
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		p := pod(name, "node-a", "9")
		p.UID = types.UID("7f3c9a2e-" + name + "1d4-4b8e-9c6a-2e5f8d1b3a" + name + name)
		all = append(all, p)
	}
	pods, err := informer.New[*corev1.Pod](podLW(all...), informer.WithName("pods"))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = pods.SetShardSelector("shardRange(object.metadata.uid, '0x0000000000000000', '0x5555555555555555')")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = pods.Start(ctx) }()
	defer func() { cancel(); <-done }()
	if err := pods.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cached:", names(pods.Cache().List()))
	fmt.Println("filtered by:", pods.ShardMode())

	err = pods.SetShardSelector("shardRange(object.metadata.uid, '0x0', '0x5')")
	fmt.Println(err != nil)
	// Output:
	// cached: [d f]
	// filtered by: client
	// true
}
