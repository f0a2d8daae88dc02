package predicate

import "github.com/steadyctl/steady/object"

// metadataFuncs is Funcs whose Create reads nothing of the event's object
// but its ObjectMeta.
type metadataFuncs[T object.Object] struct{ Funcs[T] }

func (metadataFuncs[T]) createReadsOnlyMetadata() {}

// ReadsOnlyMetadata reports whether every p reads nothing of a create
// event's object but its ObjectMeta: true for the predicates of
// GenerationChanged, ResourceVersionChanged, LabelsChanged,
// AnnotationsChanged and LabelSelector, and And, Or and Not of such. It
// lets a controller take the objects of its initial list with nothing but
// their metadata decoded (see handler.ReadsOnlyMetadata); a predicate of
// one's own never qualifies, as nothing tells what it reads.
func ReadsOnlyMetadata[T object.Object](ps ...Predicate[T]) bool {
	for _, p := range ps {
		if _, ok := p.(interface{ createReadsOnlyMetadata() }); !ok {
			return false
		}
	}
	return true
}

// metadataIf marks f as reading only metadata if every p does.
func metadataIf[T object.Object](f Funcs[T], ps ...Predicate[T]) Predicate[T] {
	if ReadsOnlyMetadata(ps...) {
		return metadataFuncs[T]{f}
	}
	return f
}
