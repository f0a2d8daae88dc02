package predicate

import (
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

// Predicate decides which events reach an event handler. Each method
// returns true to let its kind of event through.
type Predicate[T object.Object] interface {
	Create(e event.Create[T]) bool
	Update(e event.Update[T]) bool
	Delete(e event.Delete[T]) bool
	Generic(e event.Generic[T]) bool
}

// Funcs adapts functions to Predicate. A nil function lets its events through.
type Funcs[T object.Object] struct {
	CreateFunc  func(event.Create[T]) bool
	UpdateFunc  func(event.Update[T]) bool
	DeleteFunc  func(event.Delete[T]) bool
	GenericFunc func(event.Generic[T]) bool
}

// Create calls CreateFunc, or returns true if it is nil.
func (f Funcs[T]) Create(e event.Create[T]) bool { return f.CreateFunc == nil || f.CreateFunc(e) }

// Update calls UpdateFunc, or returns true if it is nil.
func (f Funcs[T]) Update(e event.Update[T]) bool { return f.UpdateFunc == nil || f.UpdateFunc(e) }

// Delete calls DeleteFunc, or returns true if it is nil.
func (f Funcs[T]) Delete(e event.Delete[T]) bool { return f.DeleteFunc == nil || f.DeleteFunc(e) }

// Generic calls GenericFunc, or returns true if it is nil.
func (f Funcs[T]) Generic(e event.Generic[T]) bool { return f.GenericFunc == nil || f.GenericFunc(e) }

// NewFilter returns a predicate that applies keep to the object of every
// event (the new object of an update). Events with a nil object are
// dropped without calling keep. Because updates are judged by the new
// object, the update that makes an object stop matching (a label removed)
// is dropped too; a controller that must clean up then uses WasOrIs.
func NewFilter[T object.Object](keep func(obj T) bool) Predicate[T] { return filter(keep, false) }

// WasOrIs is NewFilter that also passes an update whose old object
// matched: the update that makes an object stop matching, often the very
// event that must trigger clean-up (a source's label taken away, its
// copies to delete). Creates, deletes and generic events pass when their
// object matches; updates when either object does.
func WasOrIs[T object.Object](match func(obj T) bool) Predicate[T] { return filter(match, true) }

func filter[T object.Object](keep func(T) bool, orWas bool) Predicate[T] {
	check := func(obj T) bool { return !event.IsNil(obj) && keep(obj) }
	return Funcs[T]{
		CreateFunc:  func(e event.Create[T]) bool { return check(e.Object) },
		UpdateFunc:  func(e event.Update[T]) bool { return check(e.ObjectNew) || (orWas && check(e.ObjectOld)) },
		DeleteFunc:  func(e event.Delete[T]) bool { return check(e.Object) },
		GenericFunc: func(e event.Generic[T]) bool { return check(e.Object) },
	}
}

// And lets an event through only if every predicate does. It stops at the
// first refusal.
func And[T object.Object](ps ...Predicate[T]) Predicate[T] {
	return metadataIf(Funcs[T]{
		CreateFunc:  func(e event.Create[T]) bool { return all(ps, func(p Predicate[T]) bool { return p.Create(e) }) },
		UpdateFunc:  func(e event.Update[T]) bool { return all(ps, func(p Predicate[T]) bool { return p.Update(e) }) },
		DeleteFunc:  func(e event.Delete[T]) bool { return all(ps, func(p Predicate[T]) bool { return p.Delete(e) }) },
		GenericFunc: func(e event.Generic[T]) bool { return all(ps, func(p Predicate[T]) bool { return p.Generic(e) }) },
	}, ps...)
}

// Or lets an event through if any predicate does. With no predicates it
// lets nothing through.
func Or[T object.Object](ps ...Predicate[T]) Predicate[T] {
	return metadataIf(Funcs[T]{
		CreateFunc:  func(e event.Create[T]) bool { return anyOf(ps, func(p Predicate[T]) bool { return p.Create(e) }) },
		UpdateFunc:  func(e event.Update[T]) bool { return anyOf(ps, func(p Predicate[T]) bool { return p.Update(e) }) },
		DeleteFunc:  func(e event.Delete[T]) bool { return anyOf(ps, func(p Predicate[T]) bool { return p.Delete(e) }) },
		GenericFunc: func(e event.Generic[T]) bool { return anyOf(ps, func(p Predicate[T]) bool { return p.Generic(e) }) },
	}, ps...)
}

// Not inverts p.
func Not[T object.Object](p Predicate[T]) Predicate[T] {
	return metadataIf(Funcs[T]{
		CreateFunc:  func(e event.Create[T]) bool { return !p.Create(e) },
		UpdateFunc:  func(e event.Update[T]) bool { return !p.Update(e) },
		DeleteFunc:  func(e event.Delete[T]) bool { return !p.Delete(e) },
		GenericFunc: func(e event.Generic[T]) bool { return !p.Generic(e) },
	}, p)
}

func all[T object.Object](ps []Predicate[T], ok func(Predicate[T]) bool) bool {
	for _, p := range ps {
		if !ok(p) {
			return false
		}
	}
	return true
}

func anyOf[T object.Object](ps []Predicate[T], ok func(Predicate[T]) bool) bool {
	for _, p := range ps {
		if ok(p) {
			return true
		}
	}
	return false
}
