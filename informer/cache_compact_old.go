package informer

import (
	"sync"

	"github.com/steadyctl/steady/object"
)

// lazyOld is an update event's previous state in a compact cache, kept
// encoded until a handler is handed the event: the informer's goroutine,
// which every event passes through, then does not decode it, and the
// handlers of the event share the one object the first of them decodes.
type lazyOld[T object.Object] struct {
	data []byte
	once sync.Once
	obj  T
	err  error
}

// get returns the decoded object, decoding it on the first call.
func (o *lazyOld[T]) get(decode func([]byte) (T, error)) (T, error) {
	o.once.Do(func() { o.obj, o.err = decode(o.data) })
	return o.obj, o.err
}
