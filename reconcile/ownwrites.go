package reconcile

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// ownWrites is the log WithOwnWrites puts on a context: the latest write
// of each object, by the cache that will show it.
type ownWrites struct {
	mu     sync.Mutex
	writes map[ownKey]Write
}

type ownKey struct {
	cache           WriteCache
	namespace, name string
}

type ownWritesKey struct{}

// WithOwnWrites returns a copy of ctx that keeps the writes recorded with
// it (RecordWrite) for the reads made with it: package client's Get and
// List show a write made through the same cache at once, from the object
// the server returned, until the cache shows it (WriteCache.Shows). So a
// reconcile that creates a child and then lists the children finds it,
// and one that deletes a child no longer finds it, with no request and no
// wait. Package controller puts a fresh log on every reconcile's context
// while read-your-writes is on (controller.WithReadYourWrites); a test or
// a reconciler run by hand can do the same.
//
// The log lives as long as the context: one per reconcile, never shared
// between reconciles, so what other reconciles, handlers and the shared
// cache see is unchanged.
func WithOwnWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, ownWritesKey{}, &ownWrites{})
}

// OwnWrite returns the latest write made with ctx to namespace/name through
// cache, and false when there is none or ctx keeps no log (WithOwnWrites).
// Its Object, if any, is the log's own copy: copy it before changing it.
func OwnWrite(ctx context.Context, cache WriteCache, namespace, name string) (Write, bool) {
	log, ok := ctx.Value(ownWritesKey{}).(*ownWrites)
	if !ok {
		return Write{}, false
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	w, ok := log.writes[ownKey{cache, namespace, name}]
	return w, ok
}

// OwnWrites returns the latest write of each object made with ctx through
// cache, in no particular order; nil when there is none or ctx keeps no
// log. The Objects are the log's own, as OwnWrite's.
func OwnWrites(ctx context.Context, cache WriteCache) []Write {
	log, ok := ctx.Value(ownWritesKey{}).(*ownWrites)
	if !ok {
		return nil
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	var ws []Write
	for k, w := range log.writes {
		if k.cache == cache {
			ws = append(ws, w)
		}
	}
	return ws
}

// add keeps w as its object's latest write, with a copy of its Object
// (the caller keeps and may change the one it was given). A change the
// log already has a newer change of is dropped: writes made concurrently
// may be recorded out of order, and resourceVersions say which came last
// where they can (KEP-5504); otherwise the later record wins.
func (log *ownWrites) add(w Write) {
	if w.Object != nil {
		w.Object = w.Object.DeepCopyObject()
	}
	k := ownKey{w.Cache, w.Namespace, w.Name}
	log.mu.Lock()
	defer log.mu.Unlock()
	if old, ok := log.writes[k]; ok && !old.Deleted && !w.Deleted {
		if cmp, err := resourceversion.CompareResourceVersion(w.ResourceVersion, old.ResourceVersion); err == nil && cmp < 0 {
			return
		}
	}
	if log.writes == nil {
		log.writes = make(map[ownKey]Write)
	}
	log.writes[k] = w
}
