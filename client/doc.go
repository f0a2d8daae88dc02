// Package client reads objects of one kind from a shared informer cache and
// writes them to the API server.
//
// Reads come from memory: a controller that reads every object on every
// reconcile costs the API server nothing. The price is that the cache lags a
// write by the time its watch event takes to arrive. Inside a reconcile
// that lag is hidden: each write made with the reconcile's context is
// recorded (writes.Record), the reconcile's own later reads show
// it (Your own writes, below), and the controller does not start the
// request's next reconcile before the cache shows it (see package
// controller, "Reading your own writes"). Outside a reconcile, a write is
// seen a moment later, as the next event. Writes go straight to the API server, carrying the
// resourceVersion of the object given, so a write based on a stale read
// fails with 409 Conflict instead of losing someone else's change. Every
// write returns the object the server stored. A read returns an object of
// the caller's own, since caches are compact by default (see package
// informer); from a shared cache (informer.WithCompact(false)) it is the
// cache's own object: DeepCopy it before changing it.
//
//	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
//	d, err := deployments.Get(ctx, "default", "web")   // from the cache: d is yours
//	d.Spec.Replicas = ptr.To[int32](3)
//	d, err = deployments.Update(ctx, d)                  // to the API server
//
// # One write path
//
// Create, Update, UpdateStatus, Patch, PatchStatus, Apply, ApplyStatus,
// Delete and DeleteAllOf are the API server's verbs. Modify and ModifyStatus are the
// read-modify-write every reconciler needs: they apply a mutate function to
// the cached object and write it back; on 409 Conflict they re-read from
// the API server and try again, and when mutate changes nothing they write
// nothing. CreateOrUpdate creates the object or modifies it the same way;
// CreateOrPatch writes merge patches of what mutate changed instead, the
// status through its subresource.
//
//	d, err := deployments.ModifyStatus(ctx, ns, name, func(d *appsv1.Deployment) error {
//		d.Status.ObservedGeneration = d.Generation
//		return nil
//	})
//
// # Your own writes
//
// Within a reconcile run by package controller (with read-your-writes on,
// the default), a write through a Client is visible at once to the same
// reconcile's Get and List through a Client over the same cache, with no
// request and no wait:
//
//   - after a create, update, patch or apply (status included), Get
//     returns the object as the server stored it, and List (by namespace,
//     selector or index) includes it where it matches, in place of the
//     cached state;
//   - after a delete, Get answers NotFound and List leaves it out; a
//     delete that leaves the object in place for its finalizers is a write
//     like the others (deletionTimestamp set);
//   - the object is shown as the cache will hold it: its managedFields
//     dropped and the informer's transforms applied; an object outside the
//     cache's namespaces, label selector or shard, or that its field
//     selector may exclude, is shown absent, as the cache will have it.
//
// The answer is never older than the cache: a write is shown only until
// the cache shows it (its watch has passed the write's resourceVersion,
// compared as KEP-5504 defines; or, for a delete, the object is gone from
// it), and from then on the cache answers alone, with whatever others
// wrote since. Where resourceVersions cannot be compared, the cache
// answers. Only the reconcile that wrote sees this: the shared cache,
// event handlers and other reconciles see what the watch delivers, and
// events come only from the watch. Writes made outside a reconcile's
// context (or with writes.ContextWithLog not on it) are seen when the
// cache sees them. controller.WithReadYourWrites(false) turns it off.
//
// CreateOrUpdate and CreateOrPatch also take the object they are given as
// a hint: if it carries a resourceVersion newer than the cache's (an
// object a write returned, fed back in), they read the API server rather
// than act on an older state.
//
// # Server-Side Apply
//
// Apply and ApplyStatus send the state a controller wants, as an apply
// configuration (client-go's generated ones, or
// ApplyConfigurationFromUnstructured for custom resources), and the API
// server merges it: it creates the object if needed, sets the fields
// given, removes the fields the same field manager set before and no
// longer sets, and leaves everything else alone. No read, resourceVersion
// or retry loop is involved:
//
//	cm, err := configMaps.Apply(ctx, corev1ac.ConfigMap("web-settings", "shop").
//		WithData(map[string]string{"replicas": "3"}), client.ForceOwnership())
//
// Every apply names a field manager, the owner of the fields it sets:
// FieldManager's name, or else the name of the controller whose
// reconcile is running (package controller puts it on the reconcile's
// context, see reconcile.ControllerName); outside a reconcile, without
// FieldManager, Apply is an error. The option concerns applies only:
// Create, Update and Patch name theirs in their metav1 options, where
// client-go users look for it, and the API server defaults it from the
// user agent.
//
// A field that another manager set to a different value is a conflict:
// Apply fails with an *ApplyConflictError that names the fields and their
// managers (and is also a 409 Conflict). ForceOwnership takes the
// fields over instead, as the one authority on a child object should.
//
// # Where reads come from
//
// Client's Get and List read the cache, or the API server for a kind the
// factory does not cache (see Uncached kinds). Live returns a reader of
// the API server, for the rare read that must see the latest stored state;
// each of its calls is a request.
//
// A reconciler that takes an Interface[T] (or the Reader[T] and Writer[T]
// halves) instead of a *Client[T] can be unit-tested with a hand-written
// fake and no API server.
//
// # Reads never answer from an unfilled cache
//
// A cache that has not finished its first list would answer "not found"
// for objects that exist. So Get and List first wait until the informer
// they read has cached its first complete list — started on first use,
// also after the manager started — bounded by the read's context and the
// factory's sync timeout (manager.WithCacheSyncTimeout). If the cache
// cannot be filled, the read fails with an error wrapping
// informer.ErrNotSynced that names the informer and the reason: at once
// when the API server refuses the list for good (forbidden by RBAC, an
// unknown kind), or when the wait runs out. Such an error is never a
// NotFound: apierrors.IsNotFound is true only for objects that are absent
// from a synced cache, and IgnoreNotFound, which a reconciler uses to
// end on a deleted object, keeps every error that wraps ErrNotSynced. A
// reconciler that reads kinds its controller does
// not watch (a Secret next to each primary object, say) therefore sees
// them from its first reconcile on.
//
// A client's cache is scoped to namespaces: the factory's (the manager's
// WithNamespace or WithNamespaces, or the kind's own through WithKind)
// when asked for "", which is the rule for every cache of a namespaced
// manager. List without InNamespace lists all of them; reads of another
// namespace are errors naming it and the set, not empty answers.
//
// A Client does not keep its informer alive: when the factory releases it
// (its last handler removed, see informer.Factory), the client's next read
// uses the factory's current informer, which lists everything again.
//
// # Uncached kinds
//
// A kind the factory does not cache (informer.KindOptions.Uncached, e.g.
// Secrets: manager.WithKind(schema.GroupKind{Kind: "Secret"},
// informer.KindOptions{Uncached: true})) gets a Client whose Get and List
// are requests to the API server, within the same namespaces; no informer
// is made for it (Informer returns nil), so the operator needs only the
// get (and list) verbs on it, no watch, and holds none of its objects in
// memory. Writes are unchanged. Live is the per-read counterpart for a
// cached kind: one read from the API server.
//
// # Typed, unstructured and metadata-only
//
// For works for any typed kind in the factory's scheme, custom resources
// with Go types included. ForUnstructured gives the same Client, over
// *unstructured.Unstructured, for any kind, custom resources without Go
// types included: reads from the shared informer.ForUnstructured cache,
// writes through a JSON REST client as the dynamic client's. ForMetadata
// gives a Client over *metav1.PartialObjectMetadata, reading the small
// informer.ForMetadata cache and writing what the metadata API serves:
// Patch, PatchStatus, Apply, ApplyStatus, Delete and DeleteAllOf; its
// Create, Update and Modify are errors naming the kind. All three
// implement Interface[T], and Apply works on each (an unstructured client
// with ApplyConfigurationFromUnstructured is Server-Side Apply for custom
// resources without Go types).
//
// Requests go through client-go's rest.Request, with its throttling,
// retries of 429 answers, warnings, metrics and errors. A typed client of
// a built-in kind over protobuf (cluster.Cluster.ProtobufFor) encodes its
// bodies and decodes the server's answers itself, and names each request's
// path once, where client-go's serializer copies the object's bytes into
// and out of an envelope and its Request joins the path anew each time it
// needs the URL (bench/README.md, WriteCodec, measures the difference).
// Custom resources' typed clients send CBOR where the
// server serves it, else JSON (package cluster, WithCBOR).
package client
