// Package reconcile defines the contract between a controller and the code
// it runs: a Request names an object, a Reconciler brings the world in line
// with it, and the Result and error say what should happen next.
//
// A controller runs each reconcile with a context that carries its name
// (ControllerName): code the reconciler calls can tell which controller it
// works for, as the client's Server-Side Apply does to name its default
// field manager.
//
// Reasons say why a reconcile runs: the events and requeues that queued
// its request since it last ran, merged into one set (Reasons, read with
// ReasonsFrom from the reconcile's context). A Primary reason is a change
// to the request's own object, Owned to an object it controls, Watched to
// another object a handler mapped to it; InitialList and Resync qualify a
// create or update; External, ErrorRequeue and RequeueAfter name the
// rest. A reconciler must still bring the whole object in line, since
// reasons are a hint (a request whose reasons were merged while it was
// reconciled, or one added by a custom source, says less), but it may use
// them to skip work or to log what woke it.
//
// Writes say what a reconcile changed: package client records every
// successful write made with a reconcile's context (RecordWrite) as a
// Write, the object's namespace, name, UID and the resourceVersion the
// server returned, against the cache (WriteCache, an informer) that will
// show it. The controller keeps the request's next reconcile from starting
// before those caches do (see package controller, "Reading your own
// writes"); code that writes another way can record its writes too.
//
// It sits below the handler and controller packages so both can speak of
// requests. The names live here only: no other package re-exports them.
package reconcile
