package reflector

import "github.com/steadyctl/steady/object"

// ListAppender is a Store that takes a list in parts, as they arrive, before
// the Replace that ends it (deltafifo.FIFO implements it). The reflector
// hands its first list over that way, every listPart objects (or every
// page), so that the objects of a large list are not all held decoded at
// once: a consumer that keeps them in another form, or drops them, lets
// each part go as soon as it has it. first starts a new list. Later lists
// are relists, which reach the store whole, to be applied atomically.
type ListAppender[T object.Object] interface {
	AppendList(part []T, first bool) error
}

// listPart is how many objects of a streamed first list the reflector
// collects before it hands them to a ListAppender.
const listPart = 512

// listBuffer collects a list's objects for the store: whole, or in parts
// for a ListAppender.
type listBuffer[T object.Object] struct {
	r        *Reflector[T]
	items    []T
	appender ListAppender[T] // nil: the list goes whole to Replace
	first    bool
}

// newListBuffer returns the buffer for a list about to start: in parts if
// it is the first list and the store takes parts.
func (r *Reflector[T]) newListBuffer() *listBuffer[T] {
	b := &listBuffer[T]{r: r, first: true}
	r.mu.Lock()
	initial := !r.initialSync
	r.mu.Unlock()
	if a, ok := r.store.(ListAppender[T]); ok && initial {
		b.appender = a
	}
	return b
}

// add collects one object, handing a part over when it is full.
func (b *listBuffer[T]) add(obj T) {
	b.items = append(b.items, obj)
	if len(b.items) >= listPart {
		b.endPart()
	}
}

// endPart hands what has been collected to a ListAppender.
func (b *listBuffer[T]) endPart() {
	if b.appender == nil || len(b.items) == 0 {
		return
	}
	if err := b.appender.AppendList(b.items, b.first); err != nil {
		// The store applies what it can; report the rest, as for Replace.
		b.r.log.Error(err, "store rejected part of a list")
	}
	b.first = false
	clear(b.items) // the store has them: drop this buffer's references
	b.items = b.items[:0]
}
