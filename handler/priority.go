package handler

import (
	"context"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// AddOpts says how a request is added beyond Add.
type AddOpts struct {
	// Priority is the request's priority; higher is reconciled first.
	// Nil leaves it to the controller: workqueue.LowPriority for an event of the
	// initial list or an unchanged update, 0 for any other.
	Priority *int
	// Reasons say why the request is queued. Zero leaves it to the
	// controller, which records the event's kind as a Watched reason.
	Reasons reconcile.Reasons
}

// PriorityQueue is a Queue that also takes AddOpts: a controller's queue
// is one. Handlers type-assert it, as controller-runtime's do with
// priorityqueue.PriorityQueue, so a Queue that is not one (a test's
// recorder) keeps working with plain Adds; AddWithOpts does that for you.
type PriorityQueue interface {
	Queue
	// AddWithOpts adds req as o says. It takes one request, not a
	// variadic list, so that a call through the interface does not
	// allocate.
	AddWithOpts(o AddOpts, req reconcile.Request)
}

// AddWithOpts adds req to q as o says if q is a PriorityQueue, and with
// Add otherwise.
func AddWithOpts(q Queue, o AddOpts, req reconcile.Request) {
	if pq, ok := q.(PriorityQueue); ok {
		pq.AddWithOpts(o, req)
		return
	}
	q.Add(req)
}

// AtPriority returns h with its requests queued at priority, except
// those of the initial list and of unchanged updates (resyncs), which
// stay at workqueue.LowPriority: a kind whose changes are more urgent than those of
// others, say. A request h adds with a priority of its own keeps it.
// For a priority that depends on the object, write a handler that calls
// AddWithOpts.
func AtPriority[T object.Object](h EventHandler[T], priority int) EventHandler[T] {
	return metadataIf(Funcs[T]{
		CreateFunc: func(ctx context.Context, e event.Create[T], q Queue) {
			if !e.IsInInitialList {
				q = prioritized{q, &priority}
			}
			h.Create(ctx, e, q)
		},
		UpdateFunc: func(ctx context.Context, e event.Update[T], q Queue) {
			if !e.Unchanged() {
				q = prioritized{q, &priority}
			}
			h.Update(ctx, e, q)
		},
		DeleteFunc: func(ctx context.Context, e event.Delete[T], q Queue) {
			h.Delete(ctx, e, prioritized{q, &priority})
		},
		GenericFunc: func(ctx context.Context, e event.Generic[T], q Queue) {
			h.Generic(ctx, e, prioritized{q, &priority})
		},
	}, h)
}

// prioritized gives the adds that name no priority its own.
type prioritized struct {
	q        Queue
	priority *int
}

func (p prioritized) Add(req reconcile.Request) {
	AddWithOpts(p.q, AddOpts{Priority: p.priority}, req)
}

func (p prioritized) AddWithOpts(o AddOpts, req reconcile.Request) {
	if o.Priority == nil {
		o.Priority = p.priority
	}
	AddWithOpts(p.q, o, req)
}
