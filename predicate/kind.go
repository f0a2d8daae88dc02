package predicate

import (
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

// ForKind returns p, a predicate over objects of any kind, as a predicate
// of T's events: what a controller-wide filter (builder's
// WithEventFilter) applies to each kind it watches. It reads only
// metadata (ReadsOnlyMetadata) if p does.
func ForKind[T object.Object](p Predicate[object.Object]) Predicate[T] {
	f := Funcs[T]{
		CreateFunc: func(e event.Create[T]) bool {
			return p.Create(event.Create[object.Object]{Object: e.Object, IsInInitialList: e.IsInInitialList})
		},
		UpdateFunc: func(e event.Update[T]) bool {
			return p.Update(event.Update[object.Object]{ObjectOld: e.ObjectOld, ObjectNew: e.ObjectNew})
		},
		DeleteFunc: func(e event.Delete[T]) bool {
			d := event.Delete[object.Object]{Key: e.Key, DeleteStateUnknown: e.DeleteStateUnknown}
			if !event.IsNil(e.Object) { // keep "no object" a nil interface, not a typed nil
				d.Object = e.Object
			}
			return p.Delete(d)
		},
		GenericFunc: func(e event.Generic[T]) bool { return p.Generic(event.Generic[object.Object]{Object: e.Object}) },
	}
	if ReadsOnlyMetadata(p) {
		return metadataFuncs[T]{f}
	}
	return f
}
