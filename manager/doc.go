// Package manager runs an operator: the shared informer caches, the
// controllers that read them, leader election, health probes and metrics,
// started in the right order and shut down in the reverse one.
//
// A Manager owns one informer.Factory, so every controller it runs shares a
// single watch and cache per kind; the caches hold objects without
// metadata.managedFields unless WithKeepManagedFields(true) is given. Start
// starts the caches, serves /healthz and /readyz (ready once every cache
// has synced) and Prometheus metrics on /metrics (over HTTPS, to callers
// the API server authenticates and authorizes), and runs the controllers
// — only on the elected leader with WithLeaderElection, so that
// two replicas never both act (its Lease lives in the pod's own namespace
// unless named, where kubebuilder's RBAC layout grants it; outside a pod
// the namespace must be named; a Lease the API server forbids fails Start,
// naming the rule to grant). It returns when its context is cancelled
// (SignalContext cancels it on SIGTERM or SIGINT), after in-flight
// reconciles have finished:
//
//	mgr, err := manager.New(cfg, manager.WithScheme(scheme), manager.WithMetricsAddr(":8443"), manager.WithHealthAddr(":8081"))
//	err = builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).Complete(r)
//	err = mgr.Start(manager.SignalContext(context.Background()))
//
// The scheme maps the operator's Go types to kinds: the manager knows none
// without WithScheme (see WithScheme).
//
// Reconcilers read through client.For clients over the manager's Factory,
// and record Kubernetes Events through EventRecorderFor (see Events).
//
// The config usually comes from cluster.LoadConfig. Every request the
// manager and its clients make is throttled on the client side as the
// config says; a config that says nothing (QPS and Burst 0, no
// RateLimiter) gets cluster.DefaultThrottle, 20 requests/s with a burst of
// 30, rather than client-go's 5/s, which an operator's caches and writes
// outgrow. WithThrottle chooses another, cluster.NoThrottle none.
//
// # What is cached
//
// By default every kind a controller watches or a client reads is cached
// cluster-wide. WithNamespace restricts the caches to the operator's
// namespace, WithNamespaces to a set of namespaces (one informer per kind,
// fed by a watch per namespace), so that RBAC granted per namespace
// suffices. WithKind sets one kind's own namespaces, selector and
// transform, or leaves it uncached: clients then read it from the API
// server, and the operator needs no list or watch permission on it (see
// informer.KindOptions and package client).
//
// # Events
//
// EventRecorderFor returns a recorder of events.k8s.io/v1 Events, the API
// controller-runtime's GetEventRecorder uses: each names the object it is
// about and optionally a related one, the reporting controller, an action
// and a reason. Repeats of an event are counted in one Event's series
// rather than written again, and each reporting controller creates at
// most 25 Events of a type about one object at once, then one every 5
// minutes (WithEventRateLimit), the spam limit client-go's core/v1
// recorder has and its v1 one lacks. LegacyEventRecorderFor keeps core/v1
// Events, with client-go's record rules for repeats and similar events,
// for clusters and tools that need them; both are steady's own, so a
// manager links neither of client-go's event packages. Recording never
// waits for the API server. When Start returns, after the controllers,
// both have written what was recorded, the final count of every series
// included, for at most the shutdown timeout.
//
// # Shutdown order
//
// Controllers stop first: they take no new request and wait for the
// reconciles in progress. Then the leader lease is released, so a standby
// replica takes over at once rather than after the lease expires. Then the
// caches and the HTTP servers stop, and last the events recorded are
// written (see Events). If the lease is lost while running, the
// controllers are stopped at once and Start returns ErrLeaseLost: the
// process should exit and start over as a candidate, as controller-runtime's
// managers do.
//
// While the manager runs, an informer whose last watch is removed is
// released (see package informer); once shutdown begins, or the lease is
// lost, none is, so every cache lasts until the controllers are done.
//
// # Profiling
//
// WithPprofAddr serves Go's runtime profiles (net/http/pprof) under
// /debug/pprof/ on a listener of its own, started and stopped with the
// metrics server; it is off by default, as profiles expose the process.
// Importing this package registers net/http/pprof's handlers on
// http.DefaultServeMux too, as importing net/http/pprof always does; the
// manager never serves that mux.
//
// # Protected endpoints
//
// Metrics and profiles show a lot of the process, and an operator usually
// runs with broad permissions, so both are served over HTTPS and every
// request must be authenticated and authorized by the API server, as
// kube-controller-manager's are: a bearer token by a TokenReview (or a
// client certificate, WithClientCA), then a SubjectAccessReview of the
// request's verb and path as a non-resource URL. A scraper's service
// account therefore needs "get" on "/metrics" (and on "/debug/pprof/*" to
// profile), and the operator needs "create" on tokenreviews and
// subjectaccessreviews (the ClusterRole system:auth-delegator). Without
// credentials a request gets 401, without permission 403 with the
// reason; decisions are cached for a minute (denials ten seconds), so
// frequent scrapes cost the API server almost nothing. The certificate
// comes from WithServingCertificate's files, reloaded when they are
// rotated, or is self-signed at Start (logged). WithInsecureServing turns
// all of this off, for loopback during development. The probes, /healthz
// and /readyz, stay plain HTTP without authentication, as the kubelet
// needs. See package serving.
//
// # Metrics
//
// The registry (Options.Registry, or a new one with the Go and process
// collectors) carries the workqueue_* series of every controller's queue,
// controller-runtime's controller_runtime_reconcile_* series, and steady's
// own: steady_informer_cached_objects{informer} and
// steady_event_to_reconcile_seconds{controller}, the time from an informer
// delivering an event to the start of the reconcile it caused, and
// steady_reconcile_reasons_total{controller,reason}, reconciles by why
// they were queued (see package controller).
//
// # Sharding
//
// An operator can run as N replicas that share a controller's objects (see
// package shard and the builder's Sharded). The manager runs each
// shard.Ring added to it (Add; ShardInformer and Sharded add theirs) and
// each sharded controller on every replica, leader election or not, while
// unsharded controllers keep to the leader. ShardInformer keeps an
// informer to the replica's ranges as they change. Each ring reports
// steady_shard_members{ring}, steady_shard_owned_fraction{ring} (0 to 1)
// and steady_shard_owned_ranges{ring} as this replica sees them,
// steady_shard_handovers_total{ring} and steady_shard_handover_seconds{ring},
// from seeing the members change to acknowledging them having drained the
// ranges lost, and each sharded informer
// steady_shard_cached_objects{ring,informer,mode}, mode being server when
// the API server filters and client when the informer does.
//
// # What it links
//
// The manager links neither client-go's typed clientset nor its scheme of
// every built-in kind, nor client-go's leader election and events
// packages, which import them: its Lease elector, its event writers, its
// TokenReviews and SubjectAccessReviews and its webhook certificates each
// speak to the API server through a REST client of the one group version
// they need. Linking the clientset registers every built-in API group, and
// initialises its packages, when the program starts, whether or not the
// program uses them: several MiB more of the binary's pages resident, and
// more heap. Only an operator whose own code imports client-go's
// clientset or scheme (kubebuilder's main.go registers the scheme) pays
// for them (bench/README.md measures the difference). The elector speaks client-go's protocol on the Lease, so
// replicas built on steady and on controller-runtime share one.
package manager
