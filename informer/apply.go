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
	// every handler as one shared chunk, so they get a slice of their own.
	notes := inf.notes[:0]
	chunk := len(b.Items) > 1 || b.InitialList
	if chunk {
		n := 0
		for _, it := range b.Items {
			n += len(it.Deltas)
		}
		notes = make([]change[T], 0, n)
	}
	var errs []error
	c := inf.cache
	c.mu.Lock()
	if c.len() == 0 && len(b.Items) > 1024 { // filling an empty cache: size it once
		if c.compact != nil {
			c.compact.items = make(map[string][]byte, len(b.Items))
		} else {
			c.items = make(map[string]T, len(b.Items))
		}
	}
	for _, item := range b.Items {
		for _, d := range item.Deltas {
			n, ok, err := inf.applyDelta(item.Key, d, b.InitialList, chunk)
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				notes = append(notes, change[T]{key: item.Key, n: n})
			}
		}
	}
	c.mu.Unlock()

	for l := range inf.listeners {
		if chunk {
			l.enqueueChunk(notes)
			continue
		}
		for _, ch := range notes {
			l.enqueue(ch.key, ch.n)
		}
	}
	if b.InitialList && inf.listed(src) && !inf.initialApplied {
		inf.initialApplied = true
		inf.sync.setSynced()
		for l := range inf.listeners {
			l.markSynced()
		}
	}
	if !chunk {
		clear(notes) // drop object references until the next event
		inf.notes = notes[:0]
	}
	return errors.Join(errs...)
}

// applyDelta changes the cache (whose write lock is held) for one delta and
// returns the notification handlers should get, if any. A create in a
// chunk (a list) from a compact cache carries the object encoded, so that
// the chunk does not keep every object of the list decoded until each
// handler has had it.
func (inf *Informer[T]) applyDelta(key string, d deltafifo.Delta[T], initial, chunk bool) (notification[T], bool, error) {
	c := inf.cache
	if d.Type == deltafifo.Deleted {
		old := c.remove(key)
		last := d.Object
		var err error
		if old.existed && (d.FinalStateUnknown || event.IsNil(last)) {
			if last, err = c.object(old); err != nil { // the freshest state we have
				last = d.Object
			}
		}
		// Delivered even when nothing was cached or the state is unknown:
		// handlers clean up by key, and dropping the event would leak.
		return notification[T]{kind: kindDelete, obj: last, unknown: d.FinalStateUnknown}, true, err
	}
	old, err := c.put(key, d.Object, !chunk)
	switch {
	case old.notStored:
		return notification[T]{}, false, err // not cached: no event about it either
	case !old.existed && chunk && old.stored != nil:
		return notification[T]{kind: kindCreate, data: old.stored, initial: initial}, true, err
	case !old.existed:
		return notification[T]{kind: kindCreate, obj: d.Object, initial: initial}, true, err
	case d.Type == deltafifo.Replaced && c.unchanged(old, d.Object):
		return notification[T]{}, false, err // a relist found it unchanged
	}
	prev, perr := c.object(old)
	if perr != nil {
		prev = d.Object // the update still reaches handlers, as a resync would
	}
	return notification[T]{kind: kindUpdate, old: prev, obj: d.Object}, true, errors.Join(err, perr)
}
