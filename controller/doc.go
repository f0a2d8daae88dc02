// Package controller runs the reconcile loop: sources (informers) produce
// requests, a rate-limited priority work queue holds them, and workers
// call the user's Reconciler.
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
// controller name, the request, a unique reconcile ID and the reasons the
// request was queued for.
//
// # Priorities, fairness and debounce
//
// The work queue is a workqueue.PriorityQueue unless WithPriorityQueue(false)
// says otherwise, as controller-runtime's is since v0.23. After a restart the
// informer's initial list adds a request for every object; those go in at
// handler.LowPriority, as do unchanged updates (resyncs), and every other
// event at 0, so a change made meanwhile is reconciled next rather than
// after thousands of start-up reconciles. A handler may name a priority of
// its own (handler.WithPriority, or handler.AddWithOpts with AddOpts); a
// request added twice keeps the higher, and a request that fails or asks
// for RequeueAfter comes back at the priority it had.
//
// Priorities do not starve: a request that has been ready for WithMaxWait
// (a minute by default) goes ahead of every priority, so a stream of
// normal-priority work (RequeueAfter loops, busy objects) delays an
// initial-list request by at most that, plus the overdue requests ahead of
// it (controller-runtime #3496, where they waited forever).
//
// WithFairness(true) makes namespaces take turns: among requests of equal
// priority each namespace with requests waiting gets one in turn, so a
// namespace that adds 10,000 requests delays another namespace's single
// request by about one reconcile per busy namespace. WithDebounce(window,
// maxDelay) reconciles a burst of events for one object once, window after
// the last of them but never later than maxDelay after the first. The
// package workqueue documents the exact bounds; WithMaxWait, WithFairness
// and WithDebounce are an error with WithPriorityQueue(false).
//
// The priority queue costs some 100ns more per request than the plain
// queue and is still faster than client-go's plain queue in the bench
// module (about ten times controller-runtime's priority queue), which is
// nothing next to a reconcile's API calls: hence the default.
//
// # Reasons
//
// Each queued request carries why it was queued, a reconcile.Reasons set:
// a create, update or delete of the object itself (Primary), of an object
// it owns (Owned, from handler.EnqueueOwner) or of another object a handler
// maps to it (Watched), qualified by InitialList or Resync; External for a
// Generic event or a custom Source's add; ErrorRequeue and RequeueAfter for
// the controller's own requeues. Reasons of the events merged into one
// request are merged, so the reconcile that follows a burst sees all of
// them:
//
//	func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
//		if reconcile.ReasonsFrom(ctx) == reconcile.OwnedUpdated {
//			// only a child changed: skip the expensive part
//		}
//		…
//	}
//
// The reconcile's log line has them under "reasons"
// ("primary_updated,owned_deleted"), and a Metrics that is a
// ReasonMetrics (metrics.Reconcile) counts reconciles by reason in
// steady_reconcile_reasons_total{controller,reason}. Reasons are a word
// beside the request in the queue: requests stay comparable keys. With
// WithPriorityQueue(false) there are none.
//
// A controller keeps no write helpers: reconcilers write through package
// client, whose Modify and ModifyStatus retry conflicting writes.
package controller
