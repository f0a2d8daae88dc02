// Package writes tells a controller what a reconcile wrote, so that the
// reconcile's reads never answer from before its writes.
//
// A Write is one change a reconcile made to an object through a client
// that reads from a cache: the object's namespace, name and UID, the
// resourceVersion the server returned (or that it was deleted), and the
// Cache, an informer, that will show it. A Cache reports whether it shows
// a write yet (Cache.Shows) and calls back when it may (Cache.WhenShows).
//
// Package client records a Write for each successful create, update,
// patch, apply and delete made with a reconcile's context (Record). The
// controller puts a Recorder on every reconcile's context
// (ContextWithRecorder) and holds the request's next reconcile until the
// caches show the writes it was given, so that a reconcile never starts on
// a cache older than the last one's writes (controller.WithReadYourWrites,
// and package controller, "Reading your own writes").
//
// Within a reconcile, the log of its own writes (ContextWithLog) lets its
// reads show them at once: package client's Get and List look a write up
// (Find, List) and answer with the object the server returned, or without
// a deleted one, until the cache shows it (package client, "Your own
// writes"). The log lives as long as the reconcile's context, so the
// shared cache, handlers and other reconciles see only what the watch
// delivers.
//
// Code that writes another way, with a client-go clientset for instance,
// can record its own writes with Record, against the informer its
// reconciler reads from: the controller then waits for them too.
//
// The package depends on no other package of steady, so that the client,
// informer and controller packages can all speak of writes.
package writes
