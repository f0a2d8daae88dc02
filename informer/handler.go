package informer

import (
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

// Handler receives an informer's events, in the types of package event that
// predicates and event handlers take too. Each registered handler runs on
// its own goroutine, so a slow handler delays only itself; for one key it
// sees events in order (never an update before the create, never an event
// after the delete), though consecutive events may arrive coalesced (see the
// package documentation). The objects are the cache's: do not modify them.
type Handler[T object.Object] interface {
	// OnCreate is called for an object new to this handler.
	// IsInInitialList is set for objects of the informer's first list (or,
	// for a handler added later, the cache contents it is introduced to).
	OnCreate(e event.Create[T])
	// OnUpdate is called when an object changed, and on resync with
	// ObjectOld == ObjectNew.
	OnUpdate(e event.Update[T])
	// OnDelete is called when an object is gone. Its Key is always set;
	// Object is the last state the informer knew, and DeleteStateUnknown
	// says the deletion was inferred from a relist.
	OnDelete(e event.Delete[T])
}

// HandlerFuncs adapts plain functions to Handler; nil fields are skipped.
type HandlerFuncs[T object.Object] struct {
	CreateFunc func(e event.Create[T])
	UpdateFunc func(e event.Update[T])
	DeleteFunc func(e event.Delete[T])
}

// OnCreate calls CreateFunc if it is set.
func (f HandlerFuncs[T]) OnCreate(e event.Create[T]) {
	if f.CreateFunc != nil {
		f.CreateFunc(e)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f HandlerFuncs[T]) OnUpdate(e event.Update[T]) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(e)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f HandlerFuncs[T]) OnDelete(e event.Delete[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(e)
	}
}
