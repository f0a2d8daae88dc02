package controller_test

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
)

// requests is a Source with a fixed list of requests. Real controllers use
// controller.Informer.
type requests []string

func (requests) Name() string    { return "static" }
func (requests) HasSynced() bool { return true }
func (r requests) Attach(_ context.Context, q handler.Queue) (func(), error) {
	for _, name := range r {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}})
	}
	return func() {}, nil
}

// A reconciler sees each request once, however often it was added, and
// decides what happens next by what it returns.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	done := 0
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		done++
		if done == 3 {
			defer stop()
		}
		switch req.Name {
		case "broken":
			fmt.Println("reconcile", req, "-> terminal error, no retry")
			return reconcile.Result{}, reconcile.TerminalError(errors.New("spec is invalid"))
		default:
			fmt.Println("reconcile", req, "-> ok")
			return reconcile.Result{}, nil
		}
	})
	c, err := controller.New("example", r)
	if err != nil {
		panic(err)
	}
	_ = c.Watch(requests{"web", "web", "broken", "db"}) // "web" twice: reconciled once
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	// Output:
	// reconcile shop/web -> ok
	// reconcile shop/broken -> terminal error, no retry
	// reconcile shop/db -> ok
}
