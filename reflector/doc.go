// Package reflector keeps a store in step with the API server by listing and
// watching one kind of object, with the server's real semantics.
//
// A Reflector gets a complete list, hands it to its Store (a deltafifo.FIFO)
// as one Replace, then watches from the list's resourceVersion (RV) and hands
// over every event. The Store and the ListerWatcher are small interfaces;
// FromClient, FromDynamic and FromMetadata build ListerWatchers from
// client-go's typed, dynamic and metadata clients, with LabelSelector and
// FieldSelector.
//
// # Resource versions
//
// What the API server does with the RV of a request, and what the reflector
// asks for when:
//
//	request                          server answers                         reflector uses it for
//	LIST  rv=""                      consistent: current state (quorum read; the default first list (no stale read),
//	                                 from the watch cache once it caught up)  the fallback relist
//	LIST  rv="0"                     any state the server's cache holds —   only with WithInitialListResourceVersion("0")
//	                                 may be older than what you saw before
//	LIST  rv=X, NotOlderThan         state at least as new as X (cache)     relist after 410: never go back in time
//	LIST  rv=X, Exact                state exactly at X (etcd; 410 if       (not used)
//	                                 compacted)
//	LIST  continue=token             next page, pinned at the first page's  paging (limit 500); 410 when the pinned
//	                                 RV                                      RV is compacted → one unpaged list
//	WATCH rv=X                       events after X; 410 Gone when X left   every watch, from the newest RV seen
//	                                 the watch cache's window
//	WATCH rv="", sendInitialEvents,  the current state as ADDED events,     the streamed list (WatchList), when the
//	      NotOlderThan               then a bookmark annotated              server supports it
//	                                 k8s.io/initial-events-end
//
// # The loop
//
// Each watch asks for bookmarks (allowWatchBookmarks) and a random timeout
// between 5 and 10 minutes (WithWatchTimeout), so clients of a restarted
// server do not all come back at once. When a watch ends normally the
// reflector watches again from the newest RV it has seen, events and
// bookmarks included — no relist. Bookmarks keep that RV fresh on a quiet
// resource; without them a re-watch after a while would hit 410.
//
// On 410 Gone ("too old resource version") or "too large resource version",
// the reflector relists, first not older than the newest RV it has seen (so
// its store never goes back in time, and the server may answer from its
// cache), then, if that RV is itself gone, with a consistent list. Other
// errors, including connection refused or EOF while the server restarts,
// are retried after a jittered backoff from 800ms doubling to 30s, which
// starts over after two minutes without errors. A watch that closes at once
// with no event counts as an error, so it cannot spin. A watch that delivers
// nothing — not even the bookmarks kube-apiserver sends about every minute —
// for 3 minutes (WithDeadWatchTimeout) is taken to be dead and replaced.
//
// # The first list
//
// By default the first list is consistent (rv=""), so a controller that
// restarts never starts from state older than what it, or anyone, saw before
// — the stale read of kubernetes/kubernetes#59848. The cost is a quorum read
// per relist; since Kubernetes 1.31 the server serves it from its watch cache
// after confirming the cache is current, so it is cheap.
// WithInitialListResourceVersion("0") opts into the cheaper, possibly stale
// read.
//
// When the ListerWatcher is backed by a real server (StreamingLister), the
// list is streamed instead (WatchList): the server sends the objects as watch
// events and does not build the whole list in memory, and the same watch then
// carries on. The reflector never waits on a server that cannot do this: a
// rejected request, a bookmark without the end annotation, or no event for 30
// seconds makes it fall back to paged list+watch for good. ListerWatchers
// that do not say they can stream — test fakes — are never asked to.
//
// A transform (WithTransform) runs exactly once per object on every path,
// before the store sees it.
//
// # Shards
//
// WithShardSelector keeps the reflector to one shard of the objects: those
// whose metadata.uid (or metadata.namespace) has a 64-bit FNV-1a hash in
// the selector's ranges (KEP-5866). The selector goes to the API server as
// ListOptions.ShardSelector on every list page, stream and watch. A server
// with the ShardedListAndWatch feature gate applies it and echoes
// ListMeta.ShardInfo on lists; one without ignores it and sends everything.
// The reflector therefore also checks every object with the same hash, and
// drops those outside the shard: the store holds the same objects either
// way, only the network and decoding saving is lost. An object's uid and
// namespace never change, so no update moves it into or out of a shard.
// ShardMode says which side filtered (ShardServer or ShardClient, logged
// once per change): a paged list tells by ShardInfo, and an object outside
// the shard arriving anyway (a watch served by another kube-apiserver
// without the gate) turns the mode to ShardClient.
//
// A streamed list cannot tell: the server applies the selector to its
// initial events too, but its closing bookmark carries no ShardInfo, and a
// server without the gate accepts the selector on a watch and ignores it.
// So before streaming, a sharded reflector lists at most one object with
// the selector to learn the mode, and filters the stream client-side
// always. That keeps WatchList's benefit (no list built in the server's
// memory) for the price of one tiny request per relist.
//
// SetShardSelector changes the selector of a running reflector: it ends the
// watch and relists, not older than the newest resourceVersion seen, so
// the store's Replace deletes the objects that left the shard and adds
// those that entered it.
package reflector
