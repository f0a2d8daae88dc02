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
// WithPredicates puts predicates (package predicate) in front of a handler.
// Handlers never type-assert, and skip events whose object is missing; a
// deletion whose last state is unknown is still enqueued by its key.
package handler
