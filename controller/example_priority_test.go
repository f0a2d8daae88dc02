package controller_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// startup is a Source that adds what an informer's handlers would after a
// restart: the initial list at low priority, then a change to "web" seen
// both as an update of its own and as a deletion of an object it owns.
type startup struct{}

func (startup) Name() string    { return "startup" }
func (startup) HasSynced() bool { return true }
func (startup) Attach(_ context.Context, q handler.Queue) (func(), error) {
	shop := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}}
	}
	low := workqueue.LowPriority
	for _, name := range []string{"db", "cache"} {
		handler.AddWithOpts(q, handler.AddOpts{Priority: &low, Reasons: reconcile.PrimaryCreated | reconcile.InitialList}, shop(name))
	}
	handler.AddWithOpts(q, handler.AddOpts{Reasons: reconcile.PrimaryUpdated}, shop("web"))
	handler.AddWithOpts(q, handler.AddOpts{Reasons: reconcile.OwnedDeleted}, shop("web"))
	return func() {}, nil
}

// The change is reconciled before the initial list, once, with both of
// its reasons.
func Example_priorityAndReasons() {
	ctx, stop := context.WithCancel(context.Background())
	done := 0
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		fmt.Println("reconcile", req, "because", reconcile.ReasonsFrom(ctx))
		if done++; done == 3 {
			stop()
		}
		return reconcile.Result{}, nil
	})
	c, err := controller.New("example", r)
	if err != nil {
		panic(err)
	}
	_ = c.Watch(startup{})
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	// Output:
	// reconcile shop/web because primary_updated,owned_deleted
	// reconcile shop/db because primary_created,initial_list
	// reconcile shop/cache because primary_created,initial_list
}
