package informer

// Handler receives an informer's notifications. Each registered handler runs
// on its own goroutine, so a slow handler delays only itself; for one key it
// sees events in order (never an update before the add, never an event after
// the delete), though consecutive events may arrive coalesced (see Registration).
// The objects are the cache's: do not modify them.
type Handler[T Object] interface {
	// OnAdd is called for an object new to this handler. isInInitialList is
	// true for objects of the informer's first list (or, for a handler added
	// later, the cache contents it is introduced to).
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called when an object changed, and on resync with
	// oldObj == newObj.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called when an object is gone.
	OnDelete(d Deleted[T])
}

// Deleted describes a deletion.
type Deleted[T Object] struct {
	// Key is the object's namespace/name; always set.
	Key string
	// Object is the last state the informer knew: the deleted object itself
	// when a watch reported the deletion, otherwise the cached state, which
	// may be stale, or the zero value if the informer never had one.
	Object T
	// FinalStateUnknown is true when the deletion was inferred from a relist
	// (the object vanished while no watch was open), so Object is not its
	// final state. client-go calls this a DeletedFinalStateUnknown tombstone.
	FinalStateUnknown bool
}

// HandlerFuncs adapts plain functions to Handler; nil fields are skipped.
type HandlerFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(d Deleted[T])
}

// OnAdd calls AddFunc if it is set.
func (f HandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f HandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f HandlerFuncs[T]) OnDelete(d Deleted[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(d)
	}
}
