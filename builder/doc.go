// Package builder wires a controller into a manager in one sentence:
//
//	err := builder.ControllerManagedBy(mgr).
//		For(builder.Kind(&samplev1.Foo{}, predicate.GenerationChanged[*samplev1.Foo]())).
//		Owns(builder.Kind(&appsv1.Deployment{})).
//		Watches(builder.Handle(&corev1.ConfigMap{}, handler.EnqueueFunc(fooForConfigMap))).
//		Complete(reconciler)
//
// For names the primary kind: its events enqueue the object itself. Owns
// names a kind the primary creates: its events enqueue the controlling
// owner of the primary kind (owner references with controller=true). Watches
// takes any kind with a handler of your own. Each input's predicates filter
// its events; WithEventFilter adds a predicate over object.Object to every
// input.
//
// Kinds come from the manager's scheme, so typed objects (*appsv1.Deployment,
// or your custom resource's Go type once added to the scheme) need nothing
// else. An *unstructured.Unstructured or *metav1.PartialObjectMetadata with
// its apiVersion and kind set watches any kind as unstructured or
// metadata-only objects. Every informer comes from the manager's factory, so
// controllers that watch the same kind share one watch and one cache.
//
// The builder wires what a controller always watches. Build returns the
// controller, which takes further watches, and gives them back, while the
// manager runs (controller.Controller's Watch and Unwatch).
//
// # Sharding
//
// Sharded(ring, field) makes the controller one replica's share of an
// operator run as N replicas, each reconciling about 1/N of the primary
// kind, with Leases as the only coordination (see package shard):
//
//	ring, err := shard.New(mgr.Cluster(), "my-operator", podName)
//	err = builder.ControllerManagedBy(mgr).
//		For(builder.Kind(&samplev1.Foo{})).
//		Owns(builder.Kind(&appsv1.Deployment{})).
//		Sharded(ring, shard.UID).
//		Complete(reconciler)
//
// The manager runs the ring on every replica. The For kind's informer
// lists and watches only the objects whose uid (or namespace) hashes into
// this replica's ranges, and follows them as replicas come and go: the API
// server filters when its ShardedListAndWatch feature gate is on, the
// informer itself otherwise, so the cache holds the same either way
// (informer.Informer.ShardMode says which). The controller runs on every
// replica, also with leader election on, and starts a reconcile only where
// the ring's handover protocol allows: a request another replica owns is
// dropped, as that replica's informer delivers the object there, and one
// being handed over waits until the replica that had it has finished and
// acknowledged. Reconcilers need no change.
//
// A replica that owns nothing (not joined yet, or its Lease gone) lists
// the kind with a selector of the single hash 0, which in practice
// selects nothing, and reconciles nothing. One that is late renewing its
// Lease keeps its shard cached and parks its requests until it has
// renewed.
//
// Children and other watched kinds map to their owner's request as usual
// (Owns enqueues the controlling owner); the request then goes wherever
// its owner is placed:
//
//   - shard.UID spreads objects evenly, but a child's uid says nothing of
//     its owner's, so the informers of Owns and Watches kinds are not
//     sharded: every replica caches every child and hears its events, and
//     a child's request is reconciled by the replica that caches its
//     owner (the others drop it, as they do not cache the owner). Memory
//     and decoding of children are not divided, only their reconciles.
//   - shard.Namespace keeps a namespace's objects together, children
//     included, so the informers of Owns kinds are sharded by the same
//     selector: each replica holds only its namespaces' owners and
//     children, filtered by the API server. The spread is as even as the
//     namespaces' sizes. Choose it when children are many or large.
//
// The API server cannot filter children by their owner's uid (a shard
// selector hashes an object's own uid or namespace, not its owner
// references), which is why uid sharding cannot shard children's caches.
// Watches kinds are never sharded: their handlers may map an object to any
// request. Every controller sharing a sharded informer (the same kind,
// namespace and selectors in the manager) sees only the shard.
//
// Go methods cannot take type parameters, so the typed part of each input is
// built by the generic functions Kind and Handle, and the builder's methods
// take the result: For and Owns a KindInput (made by Kind), Watches a
// HandlerInput (made by Handle, with its handler), so an input passed to
// the wrong method does not compile.
package builder
