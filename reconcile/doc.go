// Package reconcile defines the contract between a controller and the code
// it runs: a Request names an object, a Reconciler (or a plain function,
// as a Func) brings the world in line with it, and the Result and error
// say what should happen next: RequeueAfter to run again later, an error
// to retry with backoff, and an error wrapped by TerminalError (tested
// with IsTerminal) to stop retrying until a new event comes.
//
// A controller runs each reconcile with a context that carries its name
// (ContextWithControllerName, read with ControllerName): code the
// reconciler calls can tell which controller it works for, as the
// client's Server-Side Apply does to name its default field manager.
//
// Reasons say why a reconcile runs: the events and requeues that queued
// its request since it last ran, merged into one set (Reasons, carried by
// the reconcile's context with ContextWithReasons and read with
// ReasonsFrom). A Primary reason is a change to the request's own object,
// Owned to an object it controls, Watched to another object a handler
// mapped to it; InitialList and Resync qualify a create or update;
// External, ErrorRequeue and RequeueAfter name the rest. A reconciler must
// still bring the whole object in line, since reasons are a hint (a
// request whose reasons were merged while it was reconciled, or one added
// by a custom source, says less), but it may use them to skip work or to
// log what woke it.
//
// What a reconcile wrote, and how its controller and its own reads wait
// for the cache to show it, is package writes'.
//
// It sits below the handler and controller packages so both can speak of
// requests. The names live here only: no other package re-exports them.
package reconcile
