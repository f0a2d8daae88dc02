package writes

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// writeLog is the log ContextWithLog puts on a context: the latest write
// of each object, by the cache that will show it.
type writeLog struct {
	mu     sync.Mutex
	writes []Write           // in the order their objects were first written
	index  map[objectKey]int // positions in writes, once there are more than indexFrom
}

// indexFrom is how many objects a log searches in order before it indexes
// them: most reconciles write one or two, and a map per reconcile cost
// more than the rest of the log.
const indexFrom = 8

func keyOf(w Write) objectKey { return objectKey{w.Cache, w.Namespace, w.Name} }

// find returns the position of k's write, or -1; l.mu is held.
func (l *writeLog) find(k objectKey) int {
	if l.index != nil {
		if i, ok := l.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range l.writes {
		if keyOf(l.writes[i]) == k {
			return i
		}
	}
	return -1
}

type objectKey struct {
	cache           Cache
	namespace, name string
}

type logKey struct{}

// ContextWithLog returns a copy of ctx that keeps the writes recorded with
// it (Record) for the reads made with it: package client's Get and List
// show a write made through the same cache at once, from the object the
// server returned, until the cache shows it (Cache.Shows). So a reconcile
// that creates a child and then lists the children finds it, and one that
// deletes a child no longer finds it, with no request and no wait.
// Package controller puts a fresh log on every reconcile's context while
// read-your-writes is on (controller.WithReadYourWrites); a test or a
// reconciler run by hand can do the same.
//
// The log lives as long as the context: one per reconcile, never shared
// between reconciles, so what other reconciles, handlers and the shared
// cache see is unchanged.
func ContextWithLog(ctx context.Context) context.Context {
	return context.WithValue(ctx, logKey{}, &writeLog{})
}

// Find returns the latest write made with ctx to namespace/name through
// cache, and false when there is none or ctx keeps no log (ContextWithLog).
// Its Object, if any, is the log's own copy: copy it before changing it.
func Find(ctx context.Context, cache Cache, namespace, name string) (Write, bool) {
	l, ok := ctx.Value(logKey{}).(*writeLog)
	if !ok {
		return Write{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := l.find(objectKey{cache, namespace, name}); i >= 0 {
		return l.writes[i], true
	}
	return Write{}, false
}

// List returns the latest write of each object made with ctx through
// cache, in no particular order; nil when there is none or ctx keeps no
// log. The Objects are the log's own, as Find's.
func List(ctx context.Context, cache Cache) []Write {
	l, ok := ctx.Value(logKey{}).(*writeLog)
	if !ok {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var ws []Write
	for _, w := range l.writes {
		if w.Cache == cache {
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
func (l *writeLog) add(w Write) {
	if w.Object != nil {
		w.Object = w.Object.DeepCopyObject()
	}
	k := keyOf(w)
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := l.find(k); i >= 0 {
		if old := l.writes[i]; !old.Deleted && !w.Deleted {
			if cmp, err := resourceversion.CompareResourceVersion(w.ResourceVersion, old.ResourceVersion); err == nil && cmp < 0 {
				return
			}
		}
		l.writes[i] = w
		return
	}
	l.writes = append(l.writes, w)
	switch {
	case l.index != nil:
		l.index[k] = len(l.writes) - 1
	case len(l.writes) > indexFrom:
		l.index = make(map[objectKey]int, 2*len(l.writes))
		for i := range l.writes {
			l.index[keyOf(l.writes[i])] = i
		}
	}
}
