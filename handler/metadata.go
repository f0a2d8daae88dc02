package handler

import "github.com/steadyctl/steady/object"

// metadataFuncs is Funcs whose Create reads nothing of the event's object
// but its ObjectMeta.
type metadataFuncs[T object.Object] struct{ Funcs[T] }

func (metadataFuncs[T]) createReadsOnlyMetadata() {}

// ReadsOnlyMetadata reports whether h reads nothing of a create event's
// object but its ObjectMeta: true for the handlers of EnqueueObject and
// EnqueueOwner, and of AtPriority around one of them, or Filtered around
// one with predicates that qualify too (predicate.ReadsOnlyMetadata). A
// controller registers such a handler with informer.MetadataOnly, which
// lets the informer file the objects of its first list without decoding
// them whole; a handler of one's own never qualifies, as nothing tells
// what it reads.
func ReadsOnlyMetadata[T object.Object](h EventHandler[T]) bool {
	_, ok := h.(interface{ createReadsOnlyMetadata() })
	return ok
}

// metadataIf marks f as reading only metadata if h does.
func metadataIf[T object.Object](f Funcs[T], h EventHandler[T]) EventHandler[T] {
	if ReadsOnlyMetadata(h) {
		return metadataFuncs[T]{f}
	}
	return f
}

// metadata marks f as reading only metadata.
func metadata[T object.Object](f Funcs[T]) EventHandler[T] { return metadataFuncs[T]{f} }
