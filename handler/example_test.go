package handler_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
)

type printQueue struct{}

func (printQueue) Add(r reconcile.Request) { fmt.Println("reconcile", r) }

// A change to a ReplicaSet reconciles the Deployment that controls it.
func ExampleEnqueueOwner() {
	h := handler.EnqueueOwner[*appsv1.ReplicaSet](schema.GroupKind{Group: "apps", Kind: "Deployment"}, handler.OnlyController())
	yes := true
	child := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web-7d9f",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Controller: &yes}},
	}}
	h.Create(context.Background(), event.Create[*appsv1.ReplicaSet]{Object: child}, printQueue{})
	// Output: reconcile shop/web
}

// optsQueue prints what a controller's queue would be given.
type optsQueue struct{ printQueue }

func (optsQueue) AddWithOpts(o handler.AddOpts, r reconcile.Request) {
	p := 0
	if o.Priority != nil {
		p = *o.Priority
	}
	fmt.Println("reconcile", r, "at priority", p, "because", o.Reasons)
}

// AtPriority puts a kind's live events ahead of others, while its
// initial list stays low.
func ExampleAtPriority() {
	h := handler.AtPriority(handler.EnqueueObject[*appsv1.Deployment](), 10)
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	h.Create(context.Background(), event.Create[*appsv1.Deployment]{Object: web}, optsQueue{})
	// Output: reconcile shop/web at priority 10 because primary_created
}
