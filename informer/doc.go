// Package informer keeps a local, indexed cache of one kind of Kubernetes
// object in step with the API server and tells handlers about every change.
//
// An Informer runs a reflector (List and Watch, see package reflector) into a
// DeltaFIFO (package deltafifo) and pops it: each popped batch is applied to
// the Cache under one write lock, then fanned out to the registered handlers.
// A relist arrives as a single batch, so readers of the cache never observe
// half of it: some objects from the new list while others that the list
// lacks are not yet deleted.
//
// # The cache
//
// Cache is a thread-safe store keyed by object.Key (namespace/name, the
// format of client-go's keys) with named indexes
// (NamespaceIndex is built in; AddIndex adds others such as by-node or
// by-owner). Its typed methods return T, not interface{}. Cache.Indexer
// returns a view that satisfies client-go's cache.Indexer, so generated
// listers work on it unchanged:
//
//	lister := corev1listers.NewPodLister(podInformer.Cache().Indexer())
//
// A read returns an object the caller owns, safe to modify: caches are
// compact by default (below). A shared cache (WithCompact(false)) returns
// the object every reader and handler shares instead, read-only: DeepCopy
// before modifying.
// An IndexFunc that fails for an object produces an error naming the
// object and index (logged by the informer); the object stays cached, only
// missing from that index. client-go panics there.
//
// # Compact caches
//
// Caches are compact unless WithCompact(false) (for a Factory, every kind;
// KindOptions.Shared, one kind) says otherwise, where T has a compact form:
// every pointer to a struct has one. A compact cache keeps each
// object encoded — protobuf for the built-in kinds; for custom resources'
// Go types, their fields by position, in a form compiled from the Go type
// (without field names); JSON for
// Unstructured and for the types that form cannot give back equal (a field
// of an interface type, or of a type with a JSON encoding of its own other
// than apimachinery's) — with the values of its indexes extracted when it
// is stored, and decodes it on every read. An object then takes a fraction
// of the heap it takes decoded (bench/README.md, InformerHeap). Every read (Get, List, ByIndex, client-go listers over
// Indexer, package client) returns an object the caller owns and may
// modify, which is what controller-runtime's cached client gives by
// deep-copying. Handlers still get decoded objects, read-only as ever: a
// watch event's are the ones the reflector produced, shared among the
// handlers, and so are the first list's. The reflector hands the first
// list over in parts as it arrives, so neither the cache nor its events
// hold the whole list decoded while the rest is read. The creates of a
// relist (and a late handler's initial creates, and resyncs) carry the
// object encoded, and each handler decodes its own as it gets them, so
// that the events of a whole relist do not hold every object decoded
// until the slowest handler is through. The last few hundred objects stored
// stay decoded, so a read soon after an event costs a DeepCopy and an
// update's event finds the previous state there; other reads decode, which
// costs somewhat more than a DeepCopy. Storing costs one encoding per
// object, except where the
// object is cached just as a protobuf watch decoded it (a Factory's
// informer of a built-in kind with no transform or shard): then the cache
// keeps the bytes the server sent, managedFields cut out while decoding if
// they are dropped. Such a cache's first list, streamed, is not even
// decoded whole while nothing would read it whole: when every handler was
// registered with MetadataOnly (as controller.Informer registers
// EnqueueObject and EnqueueOwner) and no index but the namespace one
// exists, each object comes with only its ObjectMeta decoded, the cache
// stores its bytes, and those handlers' initial creates carry the
// metadata alone; anything that needs an object whole (a handler without
// the option or an index added meanwhile, a read) decodes it from the
// bytes. Compact is the default
// because end to end it wins on every count: against shared caches a
// controller keeps less heap and spends less CPU to sync and to reconcile
// (bench/README.md measures it). A shared
// cache is still cheaper for code that reads many objects without changing
// them.
//
// # Handlers
//
// A Handler receives the events of package event — event.Create,
// event.Update, event.Delete — the same types predicates and event handlers
// take, so a controller passes them on unchanged. HandlerFuncs adapts plain
// functions.
//
// Each handler gets its own goroutine and buffer, so a slow or stuck handler
// delays only itself: never other handlers, nor the cache. The buffer is
// bounded by the number of distinct objects, not the number of events: when a
// handler lags, pending events for the same key are merged (a create followed
// by updates becomes one create of the newest state; updates keep the first
// old state and the newest new state; a create followed by a delete cancels
// out; a delete followed by a re-create keeps both). A handler that keeps up
// sees every event. For one key, events arrive in order. A deletion always
// reaches handlers with the object's key as a types.NamespacedName, also when
// the final state is unknown (event.Delete's DeleteStateUnknown, after a
// relist found the object gone) or was never cached.
//
// A handler added after Start first gets a create for every cached object.
// Registration.HasSynced reports when a handler has seen the initial list;
// informers and registrations are Syncers, which WaitForCacheSync waits for.
// A panic in a handler is recovered and logged with the object's key; the
// informer and the handler carry on.
//
// # Sharing
//
// A Factory hands out one Informer per kind, namespace and selectors, so
// every controller that watches Pods shares one watch and one cache: typed
// objects through a client-go scheme (For), any kind including custom
// resources as Unstructured (ForUnstructured), or metadata only
// (ForMetadata). The factory lists and watches through a cluster.Cluster,
// the one connection to the API server. Its Start runs them all, including
// those handed out later, until its context ends. Unlike client-go's
// factory, its informers drop metadata.managedFields before caching
// (WithKeepManagedFields turns that off): the field is often half of a
// small object, and an Update without it leaves it unchanged on the server.
//
// The typed informers of built-in kinds speak protobuf unless the
// cluster's config names another content type (cluster.Cluster.ProtobufFor,
// controller-runtime's choice too), and decode the API server's watch events and lists
// themselves, each object once from the bytes read, where client-go's
// decoders copy it twice more and look its kind up in the scheme; when the
// informer drops managedFields, they are cut from the bytes before
// decoding, so they are never allocated. Objects come out deep-equal to
// client-go's. JSON answers (custom resources, a config asking for JSON)
// are decoded by client-go.
//
// # Namespaces and kinds
//
// A factory made WithNamespace, or WithNamespaces for a set of them, is the
// limit of every cache it makes: an informer asked for namespace "" holds
// the objects of exactly those namespaces, one asked for one of them holds
// that one, one asked for another namespace is an error naming it, the set
// and the option, and AllNamespaces asks for a cluster-wide cache
// explicitly. Namespace-scoped RBAC refuses a cluster-wide watch forever,
// so steady never opens one unasked.
//
// The API server lists and watches one namespace or all of them, so the
// informer of a set of namespaces runs a list and watch per namespace,
// each into a DeltaFIFO of its own whose known objects are the cache's
// objects in that namespace; the FIFOs are popped into the one cache under
// the informer's lock. It is still one Informer: handlers, package client
// and controllers use it as any other. A relist of one namespace (after
// 410 Gone) replaces that namespace's objects and never touches the
// others'. HasSynced, WaitForSync, SyncError (which names the namespace)
// and Factory.Stats cover every namespace; LastSyncResourceVersion is the
// smallest of the namespaces' resourceVersions (see its documentation).
//
// WithKind sets how one kind is cached (KindOptions): its own namespaces,
// which replace the factory's; a label and field selector for informers
// asked for without one; a transform applied before caching; a shard
// selector (see "Shards" below); or Uncached,
// which makes package client read the kind from the API server, with no
// informer and no list or watch permission needed. An informer asked for
// explicitly — a controller watching the kind — is still made.
//
// # Shards
//
// An operator run as N replicas can give each a shard of a kind: the
// objects whose uid (or namespace) hashes into its ranges, in the API
// server's shard selector syntax (KEP-5866). KindOptions.ShardSelector is
// the initial selector of a kind's informers and SetShardSelector changes
// it at run time, as the replica's ranges change. The API server filters
// when its ShardedListAndWatch feature gate is on; otherwise the reflector
// drops the other objects itself, so the cache is the same either way.
// ShardMode says which (see package reflector).
//
// A change of selector relists each source with the new selector (not
// older than the resourceVersion the cache reflects) and applies the list
// as one Replace, like any relist: objects that left the shard get Delete
// events, objects that entered get Create events, the rest no event at
// all, and readers never see half of it. The alternatives cost more than
// they save: dropping the objects that left locally works only when the
// shard shrinks, since objects that entered must be listed anyway, and
// the watch must be restarted with the new selector in either case;
// listing only the gained ranges and deleting the lost ones locally needs
// two steps at different resourceVersions stitched together by hand; and
// restarting the informer with an empty cache makes every handler see each
// kept object deleted and created again, and reads wait for the new list.
// A relist moves the shard's objects (1/N of the kind) once, from the API
// server's watch cache, and only when membership changes.
//
// # Releasing informers
//
// A factory's informer lives while it has handlers. When the last handler
// registered with it is removed (Registration.Remove: a controller's watch
// removed with Unwatch, or its controller stopped), the factory releases
// it: it stops its reflector and handler goroutines, forgets it (Stats no
// longer lists it, and the next For makes a fresh one) and empties its
// cache, so its objects become garbage even while someone still holds the
// Informer. A released informer says so (Released); AddHandler and
// WaitForSync fail with ErrReleased; Current returns the informer the
// factory hands out now, which lists everything again and inherits the
// released one's indexes, transform and watch error handler.
//
// Only handlers count. An informer that never had one, such as one a
// package client Client made for its reads, runs until the factory stops.
// A Client does not keep its informer alive either: after a release, its
// next read uses the current informer (and waits for its list). A factory
// whose context is done, or after KeepInformers (which a manager calls as
// its shutdown begins), releases nothing: its informers stop with it, and
// reconciles still finishing read full caches.
//
// # Synced or not
//
// An informer's cache is authoritative only once it holds the first
// complete list. WaitForSync waits for that, and gives up at once, with the
// reason, when the API server refuses the list for good (RBAC, an unknown
// kind); SyncError and Factory.Stats say why an informer has not synced.
// Reads of the Cache itself, and client-go listers over Cache.Indexer, do
// not wait: package client's reads do. LastSyncResourceVersion is the
// resourceVersion every delta and bookmark applied so far reflects.
//
// # Caught up with a write
//
// The answer to a write carries the resourceVersion the API server gave
// the object: in kube-apiserver an etcd revision, one counter for the
// whole store. HasProcessed(namespace, resourceVersion) tells, in a few
// atomic loads, whether the cache reflects every change up to it —
// bookmarks count, so a quiet watch still moves forward — and
// WhenProcessed runs a function once it does, woken as each batch is
// applied, with no polling: what a controller needs so as never to
// reconcile on a cache older than its own write. An informer of several
// namespaces answers for the one asked about, whose watch is its own.
// Progress tells a quiet cache from one that is behind: the
// resourceVersion reached, when it last advanced, and when the API server
// last sent anything. resourceVersions that are not decimal numbers (some
// aggregated API servers) cannot be compared, and these calls fail open:
// HasProcessed answers true and WhenProcessed does not wait.
//
// Updates from a relist for objects whose resourceVersion did not change are
// not delivered: nothing changed. Periodic resync is per handler
// (ResyncPeriod) and delivers the cached objects as updates with old ==
// new, without going through the FIFO.
//
// # Where the code is
//
// The file names say which part a file belongs to: cache*.go is the Cache
// (cache_compact.go and cache_codec.go its compact form, cache_indexer.go
// the client-go Indexer view); informer*.go is one Informer (its sources,
// the batches it applies, its sync, progress, shard and the writes it
// shows); handler*.go is how events reach a handler (a listener per
// handler, registrations); factory*.go is the Factory (per-kind options,
// namespaces, typed and wire decoding, releasing); options.go holds the
// options of both constructors.
package informer
