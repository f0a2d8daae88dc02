// Package manager runs an operator: the shared informer caches, the
// controllers that read them, leader election, health probes and metrics,
// started in the right order and shut down in the reverse one.
//
// A Manager owns one informer.Factory, so every controller it runs shares a
// single watch and cache per kind; the caches hold objects without
// metadata.managedFields unless WithKeepManagedFields(true) is given. Start
// starts the caches, serves /healthz and /readyz (ready once every cache
// has synced) and Prometheus metrics on /metrics, and runs the controllers
// — only on the elected leader with WithLeaderElection, so that
// two replicas never both act. It returns when its context is cancelled
// (SignalContext cancels it on SIGTERM or SIGINT), after in-flight
// reconciles have finished:
//
//	mgr, err := manager.New(cfg, manager.WithMetricsAddr(":8080"), manager.WithHealthAddr(":8081"))
//	err = builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).Complete(r)
//	err = mgr.Start(manager.SignalContext(context.Background()))
//
// Reconcilers read through client.For clients over the manager's Factory,
// and record Kubernetes Events through EventRecorderFor.
//
// The config usually comes from cluster.LoadConfig. Every request the
// manager and its clients make is throttled on the client side as the
// config says; a config that says nothing (QPS and Burst 0, no
// RateLimiter) gets cluster.DefaultThrottle, 20 requests/s with a burst of
// 30, rather than client-go's 5/s, which an operator's caches and writes
// outgrow. WithClientThrottle chooses another, cluster.NoThrottle none.
//
// # Shutdown order
//
// Controllers stop first: they take no new request and wait for the
// reconciles in progress. Then the leader lease is released, so a standby
// replica takes over at once rather than after the lease expires. Then the
// caches and the HTTP servers stop. While the manager runs, an informer
// whose last watch is removed is released (see package informer); once
// shutdown begins none is, so every cache lasts until the controllers are
// done. If the lease is lost while running, the
// controllers are stopped at once and Start returns ErrLeaseLost: the
// process should exit and start over as a candidate, as controller-runtime's
// managers do.
//
// # Metrics
//
// The registry (Options.Registry, or a new one with the Go and process
// collectors) carries the workqueue_* series of every controller's queue,
// controller-runtime's controller_runtime_reconcile_* series, and steady's
// own: steady_informer_cached_objects{informer} and
// steady_event_to_reconcile_seconds{controller}, the time from an informer
// delivering an event to the start of the reconcile it caused.
package manager
