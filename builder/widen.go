package builder

import (
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
)

// widen applies a predicate over object.Object to events of kind T, for
// WithEventFilter.
type widen[T object.Object] struct {
	p predicate.Predicate[object.Object]
}

func (w widen[T]) Create(e event.Create[T]) bool {
	return w.p.Create(event.Create[object.Object]{Object: e.Object, IsInInitialList: e.IsInInitialList})
}

func (w widen[T]) Update(e event.Update[T]) bool {
	return w.p.Update(event.Update[object.Object]{ObjectOld: e.ObjectOld, ObjectNew: e.ObjectNew})
}

func (w widen[T]) Delete(e event.Delete[T]) bool {
	d := event.Delete[object.Object]{Key: e.Key, DeleteStateUnknown: e.DeleteStateUnknown}
	if !event.IsNil(e.Object) { // keep "no object" a nil interface, not a typed nil
		d.Object = e.Object
	}
	return w.p.Delete(d)
}

func (w widen[T]) Generic(e event.Generic[T]) bool {
	return w.p.Generic(event.Generic[object.Object]{Object: e.Object})
}
