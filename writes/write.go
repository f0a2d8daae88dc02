package writes

import (
	"context"
	"reflect"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// A Write is a change a reconcile made to an object through a client that
// reads from a cache: what the controller needs to tell when that cache
// shows the change. Package client records one for every successful
// create, update, patch, apply and delete made with a reconcile's context;
// code that writes another way may record its own with Record.
type Write struct {
	// Cache is the cache that will show the write.
	Cache Cache
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
	// the reconcile's own reads show until the cache does (ContextWithLog);
	// nil for a deletion. Record passes a Recorder the write without it,
	// so that no recorder keeps objects alive.
	Object runtime.Object
}

// Cache is a cache that reports when it shows a write; package informer's
// Informer implements it. Writes are told apart by their cache, so an
// implementation must be comparable, as a pointer is: Record ignores a
// write whose cache is not.
type Cache interface {
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

// Recorder receives the writes a reconcile makes; package controller puts
// one on every reconcile's context (ContextWithRecorder) to keep the
// reconcile's next run from starting on a cache that does not show them.
type Recorder interface {
	Record(w Write)
}

type recorderKey struct{}

// ContextWithRecorder returns a copy of ctx whose writes go to r.
func ContextWithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// Record keeps w in the log of ctx's own writes (ContextWithLog), and
// passes it, without its Object, to the Recorder of ctx; each only if ctx
// has one. Outside of a reconcile it does nothing.
func Record(ctx context.Context, w Write) {
	if w.Cache == nil || !reflect.TypeOf(w.Cache).Comparable() {
		return
	}
	if l, ok := ctx.Value(logKey{}).(*writeLog); ok {
		l.add(w)
	}
	r, ok := ctx.Value(recorderKey{}).(Recorder)
	if !ok {
		unattributed.Add(1)
		return
	}
	w.Object = nil
	r.Record(w)
}

// unattributed counts the writes Record was given without a Recorder.
var unattributed atomic.Uint64

// Unattributed returns how many writes Record has been given, since the
// process started, with a context that carries no Recorder: writes through
// package client made outside a reconcile, or inside one with a context
// not derived from the reconcile's (context.Background() in a goroutine,
// say). No controller holds a reconcile for them. Writes through other
// clients, such as a client-go clientset, never reach Record and are not
// counted. Package metrics exports the count as
// steady_writes_unattributed_total.
func Unattributed() uint64 { return unattributed.Load() }
