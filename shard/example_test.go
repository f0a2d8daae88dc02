package shard_test

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/shard"
)

// Every replica computes the same assignment from the same members; a
// replica's selector makes the API server send it only what it owns.
func ExampleAssignment() {
	a, err := shard.NewAssignment([]string{"pod-0", "pod-1", "pod-2"}, 4)
	if err != nil {
		panic(err)
	}
	h := shard.Hash("0a3c0d2e-6f43-4e55-9d55-3b7e6b1c2d10") // an object's uid
	fmt.Println("owner:", a.Owner(h))
	sel, _ := a.Selector(a.Owner(h), shard.UID)
	fmt.Println("selector:", sel)
	// Output:
	// owner: pod-2
	// selector: shardRange(object.metadata.uid, '0x0000000000000000', '0x0f9ea82a37feffed') || shardRange(object.metadata.uid, '0x7f41d619be61500b', '0x8b55f24a3097b975') || shardRange(object.metadata.uid, '0xbe3ac55d0a6c9c78', '0xfaf4b92271edbae9') || shardRange(object.metadata.uid, '0xff17798ff8eb62ad', '0x10000000000000000')
}

// A replica joins the ring and reconciles only what it may start.
func ExampleRing() {
	cfg, err := cluster.LoadConfig()
	if err != nil {
		panic(err)
	}
	c, err := cluster.New(cfg) // or a manager's: mgr.Cluster()
	if err != nil {
		panic(err)
	}
	ring, err := shard.New(c, "my-operator", "pod-0", shard.WithNamespace("my-operator-system"))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	go func() { _ = ring.Start(ctx) }()

	reconcile := func(uid string) {
		done, ok := ring.Begin(shard.Hash(uid))
		if !ok {
			return // another replica's, or not yet handed over
		}
		defer done()
		// … reconcile the object …
	}
	reconcile("0a3c0d2e-6f43-4e55-9d55-3b7e6b1c2d10")
}
