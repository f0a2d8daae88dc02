// Package handler turns informer events into reconcile requests.
//
// An EventHandler receives typed events (package event) and adds
// reconcile.Requests to a Queue, normally the controller's work queue. The
// handlers here cover what controllers need:
//
//   - EnqueueObject: reconcile the object itself (the primary kind);
//   - EnqueueOwner: reconcile the owner named by the object's owner
//     references, matched by group and kind, optionally only the controller
//     reference (children such as Pods or Deployments an operator created);
//   - EnqueueFunc: reconcile whatever a function maps the object to (any
//     other relation: a ConfigMap to the objects that mount it);
//   - Funcs: any function per event kind.
//
// A controller's queue is a PriorityQueue as well: AddWithOpts adds a
// request with a priority and reasons (AddOpts) when the queue takes them,
// and with Add otherwise, so handlers work on any Queue. EnqueueObject,
// EnqueueOwner and EnqueueFunc name their reasons (reconcile.Primary…,
// Owned…, Watched…); the controller adds the rest, and puts the requests
// of an initial list and of unchanged updates at workqueue.LowPriority, whatever
// the handler (controller-runtime's WithLowPriorityWhenUnchanged, built
// in). AtPriority gives a handler's other requests a priority of their
// own.
//
// Filtered puts predicates (package predicate) in front of a handler.
// Handlers never type-assert, and skip events whose object is missing; a
// deletion whose last state is unknown is still enqueued by its key.
package handler
