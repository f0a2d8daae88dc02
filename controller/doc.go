// Package controller runs the reconcile loop: sources (informers) produce
// requests, a rate-limited priority work queue holds them, and workers
// call the user's reconcile.Reconciler.
//
// A reconcile.Request names an object, never its state: the reconciler reads the
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
//   - reconcile.TerminalError(err): logged, the backoff forgotten, not retried until a
//     new event arrives;
//   - a panic: recovered (WithRecoverPanic), logged with its stack, and
//     treated as an error;
//   - reconcile.Result{RequeueAfter: d} with a nil error: the backoff is forgotten and
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
// workqueue.LowPriority, as do unchanged updates (resyncs), and every other
// event at 0, so a change made meanwhile is reconciled next rather than
// after thousands of start-up reconciles. A handler may name a priority of
// its own (handler.AtPriority, or handler.AddWithOpts with AddOpts); a
// request added twice keeps the higher, and a request that fails or asks
// for RequeueAfter comes back at the priority it had. So does the update
// that only echoes a write the request's own reconcile made (its
// resourceVersion is the one the write returned, recorded by package
// client): the follow-up of an initial-list reconcile stays behind the
// rest of the initial list rather than going ahead of it as a change.
//
// Priorities do not starve: a request that has been ready for WithMaxWait
// (a minute by default) is overdue, and overdue requests, oldest first,
// take turns with the others, so a stream of normal-priority work
// (RequeueAfter loops, busy objects) delays an initial-list request by at
// most that, plus a turn each for it and the overdue requests ahead of it
// (controller-runtime #3496, where they waited forever); and an overdue
// initial list of any size delays a change by at most one turn.
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
//	func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
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
// # Reading your own writes
//
// A reconcile never starts on a cache older than this controller's last
// write for that request. Every write a reconcile makes through package
// client (create, update, patch, apply, status, delete) is recorded, as a
// writes.Write with the resourceVersion the server returned, against the
// request being reconciled: the request's own object and any other
// object written on its behalf, such as a child it created or deleted.
// When a worker next takes the request, it checks that every cache
// written through has processed those resourceVersions (the informer's
// events and bookmarks count; a deleted object must be gone from the
// cache). If not, the request is held: put back, not counted as a
// failure, and queued again the moment the informer catches up, a
// notification and not a poll. So a controller that creates one child
// per parent does not create a second one because the first is not cached
// yet, and one that writes status does not undo its own write from a
// stale read.
//
// Within one reconcile, the reads come after the writes too: every
// reconcile's context keeps a log of its own writes
// (writes.ContextWithLog), and a Get or List through package client
// shows each write made through the same cache, as the server returned it,
// until the cache shows it. A child just created is in the next List, a
// child just deleted is not, with no request and no wait; the shared cache,
// handlers and other reconciles see only what the watch delivers (see
// package client, "Your own writes").
//
// What it does not cover: writes by others (another controller, a user)
// stay eventually consistent, as with any cache; writes made without the
// reconcile's context, or with a client that does not read from a cache,
// are not tracked (writes.Record records one by hand): those made through
// steady's client with another context are counted
// (steady_writes_unattributed_total, writes.Unattributed), those made
// through another client, such as a client-go clientset, cannot be. Where
// resourceVersions are not numbers (some aggregated API servers), the
// check fails open: the reconcile runs. A hold lasts at most
// WithReadYourWritesTimeout (10 seconds by default), after which the
// reconcile runs on what the cache has, logged with the awaited
// resourceVersion. A write to a namespace the cache does not cover holds
// nothing: that cache has nothing to show, and the client's reads of the
// namespace are errors naming it (Live reads it). A write of an object the
// cache's label selector leaves out counts as shown once the cache's watch
// of that namespace has moved past the write's resourceVersion: at the
// next event of an object it does select, or the next bookmark (sent
// about every minute), so it may cost up to the bound. Metrics (WriteMetrics):
// steady_reconcile_held_total, steady_reconcile_hold_seconds and
// steady_reconcile_hold_timeouts_total. WithReadYourWrites(false) turns it
// off. With no lag it costs a map entry per written request and a few
// atomic loads per reconcile.
//
// WithDropOwnEchoes(true) goes further: the update event that merely
// echoes the controller's own write (its resourceVersion is the one the
// write returned, mapped to the request that wrote it) is dropped rather
// than reconciled again, halving the reconciles of a controller that
// writes the object it reconciles. It is off by default because it is only
// safe when the reconcile needs nothing from the object's new state that
// it did not write itself; see its documentation.
//
// # Sharding
//
// WithSharding(ring, hash) makes a controller one replica's share of an
// operator run as several replicas (see package shard): each worker finds
// the request's hash (ShardByNamespace, or the uid of its object) and asks
// the ring to Begin it, ending it when Reconcile returns, so that the ring
// hands a range to another replica only once no reconcile in it runs
// here. A request this replica owns but may not start yet, while a
// handover is in progress, is parked: not reconciled, not counted as a
// failure, and queued again with its reasons the moment the ring changes
// (no polling). A request another replica owns is dropped: that replica
// caches the object and its informer delivers it there. A request whose
// object this replica does not know is dropped too, except one it found
// before and retries, such as the failed reconcile of an object deleted
// since. A sharded controller runs on every replica: NeedLeaderElection
// is false. The builder's Sharded wires it, with the informers to match
// (see package builder, "Sharding").
//
// A controller keeps no write helpers: reconcilers write through package
// client, whose Modify and ModifyStatus retry conflicting writes.
package controller
