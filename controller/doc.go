// Package controller runs the reconcile loop: sources (informers) produce
// requests, a rate-limited work queue holds them, and workers call the
// user's Reconciler.
//
// A Request names an object, never its state: the reconciler reads the
// current state from the cache, so a burst of events for one object becomes
// one reconcile, and a request is never reconciled by two workers at once.
//
//	c, _ := controller.New("deployments", reconciler, controller.WithMaxConcurrentReconciles(4))
//	c.Watch(controller.Informer(deployInformer, handler.EnqueueObject[*appsv1.Deployment](),
//		predicate.GenerationChanged[*appsv1.Deployment]()))
//	err := c.Start(ctx)
//
// Start waits for every source's cache to sync (its error names those that
// did not within WithCacheSyncTimeout), then runs the workers until ctx is
// done. On shutdown no new request is taken, and reconciles in progress run
// to the end: their context is not cancelled with the controller's (use
// WithReconcileTimeout to bound them).
//
// # Watches at run time
//
// Watch works on a running controller too: the source is attached to the
// queue at once and its initial state is enqueued as usual. The controller
// does not wait for it; informer.WaitForCacheSync(ctx, src) does, a Source
// being an informer.Syncer. Unwatch removes a source
// again, before or after Start; once it returns, no request from that
// source reaches the queue. An informer source's handler is removed with
// it, and a Factory's informer that no other handler uses is released:
// stopped, forgotten and its cache emptied (see package informer).
//
//	src := controller.Informer(foos, handler.EnqueueObject[*unstructured.Unstructured]())
//	err := c.Watch(src)   // e.g. when the Foo CRD appears
//	err = c.Unwatch(src)  // when it goes: the Foo informer is stopped
//
// The builder's For, Owns and Watches remain the way to wire what a
// controller always watches; Build returns the controller for the rest.
//
// # Outcomes
//
//   - an error: the request is retried after the rate limiter's backoff
//     (default: per-request exponential 5ms..1000s, with an overall 10 qps
//     bucket);
//   - TerminalError(err): logged, the backoff forgotten, not retried until a
//     new event arrives;
//   - a panic: recovered (WithRecoverPanic), logged with its stack, and
//     treated as an error;
//   - Result{RequeueAfter: d} with a nil error: the backoff is forgotten and
//     the request comes back after d;
//   - an error together with RequeueAfter: the error wins and RequeueAfter is
//     ignored, as in controller-runtime;
//   - success: the backoff is forgotten.
//
// Every reconcile's context carries a logger (LoggerFrom) with the
// controller name, the request and a unique reconcile ID.
//
// A controller keeps no write helpers: reconcilers write through package
// client, whose Modify and ModifyStatus retry conflicting writes.
package controller
