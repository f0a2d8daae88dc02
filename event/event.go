package event

import (
	"reflect"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/object"
)

// Create is an object appearing: created, or first seen by the informer.
type Create[T object.Object] struct {
	Object T
	// IsInInitialList is true for objects of the informer's first list (or,
	// for a handler added later, the cache contents it is introduced to).
	IsInInitialList bool
}

// Update is an object changing from ObjectOld to ObjectNew. A periodic
// resync delivers an Update with ObjectOld == ObjectNew.
type Update[T object.Object] struct {
	ObjectOld, ObjectNew T
}

// Unchanged reports whether the update changed nothing: both objects are
// present and have the same resource version, as on a periodic resync.
// A controller queues the requests of such updates at low priority and
// with the reason reconcile.Resync.
func (e Update[T]) Unchanged() bool {
	return !IsNil(e.ObjectOld) && !IsNil(e.ObjectNew) &&
		e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion()
}

// Delete is an object going away.
type Delete[T object.Object] struct {
	// Key names the object; it is always set, even when Object is not.
	Key types.NamespacedName
	// Object is the last state known: the deleted object itself when a
	// watch reported the deletion; otherwise the cached state, which may be
	// stale, or the zero value if it was never known.
	Object T
	// DeleteStateUnknown is true when the deletion was inferred from a
	// relist (the object vanished while no watch was open) rather than seen
	// on a watch, so Object is not the final state. client-go calls this a
	// DeletedFinalStateUnknown tombstone.
	DeleteStateUnknown bool
}

// Generic is an event from outside the API server (a timer, an external
// system) about Object.
type Generic[T object.Object] struct {
	Object T
}

// IsNil reports whether an event's object is missing: nil, or a typed nil
// pointer (which an interface type parameter can carry).
func IsNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
