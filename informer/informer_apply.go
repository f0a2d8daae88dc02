package informer

import (
	"errors"

	"github.com/steadyctl/steady/deltafifo"
	"github.com/steadyctl/steady/event"
)

// apply folds one batch from src's FIFO into the cache under a single
// write lock, so readers never see part of a relist, and then queues the
// resulting notifications to every handler (which never blocks).
func (inf *Informer[T]) apply(src *source[T], b deltafifo.Batch[T]) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	// A single watch event reuses one buffer. A relist's notifications go to
	// every handler as one shared chunk, so they get a slice of their own;
	// a compact cache's, with the objects it creates left encoded.
	notes := inf.notes[:0]
	var encoded []encodedChange[T]
	chunk := len(b.Items) > 1 || b.InitialList
	c := inf.cache
	if chunk {
		n := 0
		for _, it := range b.Items {
			n += len(it.Deltas)
		}
		if c.compact != nil {
			encoded = make([]encodedChange[T], 0, n)
		} else {
			notes = make([]change[T], 0, n)
		}
	}
	var errs []error
	c.mu.Lock()
	if c.len() == 0 && len(b.Items) > 1024 { // filling an empty cache: size it once
		if c.compact != nil {
			c.compact.items = make(map[string][]byte, len(b.Items))
		} else {
			c.items = make(map[string]T, len(b.Items))
		}
	}
	keepDecoded := b.InitialList || len(b.Items) <= maxDecodedChunk
	for _, item := range b.Items {
		for _, d := range item.Deltas {
			n, data, ok, err := inf.applyDelta(item.Key, d, b.InitialList, chunk, keepDecoded)
			if err != nil {
				errs = append(errs, err) // an IndexFunc's: the change still counts
			}
			switch {
			case !ok:
			case encoded != nil:
				encoded = append(encoded, encodedChange[T]{change: change[T]{key: item.Key, n: n}, data: data})
			default:
				notes = append(notes, change[T]{key: item.Key, n: n})
			}
		}
	}
	c.mu.Unlock()

	for l := range inf.listeners {
		switch {
		case encoded != nil:
			l.enqueueEncoded(encoded)
		case chunk:
			l.enqueueChunk(notes)
		default:
			for _, ch := range notes {
				l.enqueue(ch.key, ch.n)
			}
		}
	}
	if b.InitialList && !b.More {
		src.listApplied = true // reported by listDone once the FIFO lets go of the list
	}
	if !chunk {
		clear(notes) // drop object references until the next event
		inf.notes = notes[:0]
	}
	return errors.Join(errs...)
}

// listDone marks the informer synced, and queues the barrier that marks its
// handlers synced, once src's list has been applied and every source has
// listed. It runs after Pop has returned, when the FIFO no longer holds
// the batch: a compact cache then holds no decoded object of the list once
// it says it has synced.
func (inf *Informer[T]) listDone(src *source[T]) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if !src.listApplied {
		return
	}
	src.listApplied = false
	if inf.listed(src) && !inf.initialApplied {
		inf.initialApplied = true
		inf.cache.dropPartial()
		inf.sync.setSynced()
		for l := range inf.listeners {
			l.markSynced()
		}
	}
}

// maxDecodedChunk is the most objects a compact cache's chunk of a relist
// carries decoded, beside their encoding, so that a large relist's chunk
// holds no decoded objects until every handler has had them. The first
// list's chunks carry them whatever their size: its objects reach handlers
// without being decoded again, and they are decoded already, in parts as
// the list arrives (see reflector.ListAppender) or in one list the server
// sent whole.
const maxDecodedChunk = 1024

// applyDelta changes the cache (whose write lock is held) for one delta and
// returns the notification handlers should get, if any. A create in a
// chunk (a list) from a compact cache comes with the object's encoding,
// and without its object unless keepDecoded: a chunk of a large list then
// does not keep every object of the list decoded until each handler has
// had it.
func (inf *Informer[T]) applyDelta(key string, d deltafifo.Delta[T], initial, chunk, keepDecoded bool) (n notification[T], data []byte, ok bool, err error) {
	c := inf.cache
	if d.Type == deltafifo.Deleted {
		old := c.remove(key)
		last := d.Object
		if old.existed && (d.FinalStateUnknown || event.IsNil(last)) {
			if last, err = c.object(old); err != nil { // the freshest state we have
				last = d.Object
			}
		}
		// Delivered even when nothing was cached or the state is unknown:
		// handlers clean up by key, and dropping the event would leak.
		return notification[T]{kind: kindDelete, obj: last, unknown: d.FinalStateUnknown}, nil, true, err
	}
	old, err := c.put(key, d.Object, !chunk)
	obj := d.Object
	if !event.IsNil(old.whole) {
		obj = old.whole // d.Object had only its metadata decoded
	}
	switch {
	case old.notStored:
		return n, nil, false, err // not cached: no event about it either
	case !old.existed && chunk && old.stored != nil && keepDecoded:
		// A partial object goes only to the handlers that read metadata
		// alone; the others decode the stored bytes.
		return notification[T]{kind: kindCreate, obj: obj, initial: initial, partial: old.partial}, old.stored, true, err
	case !old.existed && chunk && old.stored != nil:
		return notification[T]{kind: kindCreate, initial: initial}, old.stored, true, err
	case !old.existed:
		return notification[T]{kind: kindCreate, obj: obj, initial: initial}, nil, true, err
	case d.Type == deltafifo.Replaced && c.unchanged(old, obj):
		return n, nil, false, err // a relist found it unchanged
	}
	if c.compact != nil && !old.ref.hot {
		// Decoded when a handler gets the event, off this goroutine.
		return notification[T]{kind: kindUpdate, obj: obj, lazyOld: &lazyOld[T]{data: old.ref.data}}, nil, true, err
	}
	prev, perr := c.object(old)
	if perr != nil {
		prev = obj // the update still reaches handlers, as a resync would
	}
	return notification[T]{kind: kindUpdate, old: prev, obj: obj}, nil, true, errors.Join(err, perr)
}
