package event

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Object is any API object with object metadata.
type Object interface {
	metav1.Object
	runtime.Object
}

// Create is an object appearing: created, or first seen by the informer.
type Create[T Object] struct {
	Object T
	// IsInInitialList is true for objects from the informer's first list.
	IsInInitialList bool
}

// Update is an object changing from ObjectOld to ObjectNew.
type Update[T Object] struct {
	ObjectOld, ObjectNew T
}

// Delete is an object going away.
type Delete[T Object] struct {
	// Key names the object; it is set even when Object is not.
	Key types.NamespacedName
	// Object is the last known state; it may be stale when
	// DeleteStateUnknown is set, or the zero value if it was never known.
	Object T
	// DeleteStateUnknown is true when the deletion was inferred from a
	// relist rather than seen on a watch.
	DeleteStateUnknown bool
}

// Generic is an event from outside the API server (a timer, an external
// system) about Object.
type Generic[T Object] struct {
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
