package reconcile

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// A Write is a change a reconcile made to an object through a client that
// reads from a cache: what the controller needs to tell when that cache
// shows the change. Package client records one for every successful
// create, update, patch, apply and delete made with a reconcile's context;
// code that writes another way may record its own with RecordWrite.
type Write struct {
	// Cache is the cache that will show the write.
	Cache WriteCache
	// Namespace and Name name the object ("" namespace for cluster-scoped
	// objects); UID tells it from an object of the same name created
	// later.
	Namespace, Name string
	UID             types.UID
	// ResourceVersion is the one the server returned for the object; ""
	// for a deletion that returned no object.
	ResourceVersion string
	// Deleted says the object was deleted (and ResourceVersion, if any, is
	// its last state's): the cache shows the write once it no longer
	// holds the object with this UID.
	Deleted bool
	// Object is the object as the server returned it, for a change: what
	// the reconcile's own reads show until the cache does (WithOwnWrites);
	// nil for a deletion. RecordWrite passes a WriteRecorder the write
	// without it, so that no recorder keeps objects alive.
	Object runtime.Object
}

// WriteCache is a cache that reports when it shows a write; package
// client implements it over an informer. Writes are told apart by their
// cache, so an implementation must be comparable, as a pointer is:
// RecordWrite ignores a write whose cache is not.
type WriteCache interface {
	// Shows reports whether the cache shows w: it has processed every
	// change up to w's resourceVersion, or for a deletion no longer holds
	// the object. It reports true when it cannot tell (resourceVersions
	// that are not numbers), so that a caller never waits forever.
	Shows(w Write) bool
	// WhenShows arranges for f to run once the cache may show w, or stops,
	// and reports whether it will: false (and f never runs) when Shows(w)
	// already holds. f runs on a goroutine of the cache and must not
	// block; a caller checks Shows again when it runs. cancel drops a call
	// that has not happened and reports whether it did.
	WhenShows(w Write, f func()) (cancel func() bool, waiting bool)
}

// WriteRecorder receives the writes a reconcile makes; package controller
// puts one on every reconcile's context (WithWriteRecorder) to keep the
// reconcile's next run from starting on a cache that does not show them.
type WriteRecorder interface {
	RecordWrite(w Write)
}

type writeRecorderKey struct{}

// WithWriteRecorder returns a copy of ctx whose writes go to r.
func WithWriteRecorder(ctx context.Context, r WriteRecorder) context.Context {
	return context.WithValue(ctx, writeRecorderKey{}, r)
}

// RecordWrite keeps w in the log of ctx's own writes (WithOwnWrites), and
// passes it, without its Object, to the WriteRecorder of ctx; each only if
// ctx has one. Outside of a reconcile it does nothing.
func RecordWrite(ctx context.Context, w Write) {
	if w.Cache == nil || !reflect.TypeOf(w.Cache).Comparable() {
		return
	}
	if log, ok := ctx.Value(ownWritesKey{}).(*ownWrites); ok {
		log.add(w)
	}
	if r, ok := ctx.Value(writeRecorderKey{}).(WriteRecorder); ok {
		w.Object = nil
		r.RecordWrite(w)
	}
}
