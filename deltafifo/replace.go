package deltafifo

import (
	"errors"
	"fmt"

	"github.com/steadyctl/steady/object"
)

// Replace records a complete list of the objects, as of resourceVersion.
// Every listed object gets a Replaced delta. Every object the consumer knows
// (or that is queued) but the list lacks gets a Deleted delta with
// FinalStateUnknown set and its last known state: it was deleted while no
// watch was open. Everything queued at that point is handed over by the next
// Pop as one Batch, so the consumer can apply the relist atomically.
//
// An object without a key is skipped and reported in the returned error; the
// rest of the list is still applied.
func (f *FIFO[T]) Replace(list []T, resourceVersion string) error {
	keys := make([]string, len(list))
	var errs []error
	for i, obj := range list {
		key, err := keyOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("deltafifo: Replace: %s: %w", describe(obj), err))
		}
		keys[i] = key
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.waitIdle()
	parts, partKeys := f.listing, f.listKeys // the list's earlier parts (AppendList)
	f.listing, f.listKeys = false, nil
	// Deletions are possible only if something is known or queued besides
	// the list's own parts; on the initial list nothing is, and the set of
	// listed keys is not needed.
	var knownKeys []string
	if f.known != nil && (!parts || partKeys != nil) {
		knownKeys = f.known.ListKeys()
	}
	var listed map[string]struct{}
	if (len(knownKeys) > 0 || f.order.len() > 0 || f.direct != nil) && (!parts || partKeys != nil) {
		listed = partKeys
		if listed == nil {
			listed = make(map[string]struct{}, len(list))
		}
		for _, key := range keys {
			listed[key] = struct{}{}
		}
	}
	if listed == nil && f.order.len() == 0 && (f.direct == nil || parts) {
		f.direct, f.directRV = append(f.direct, directBatch(list, keys)...), f.latestRV
	} else {
		f.materialize()
		for i, obj := range list {
			if keys[i] != "" {
				f.queue(keys[i], Delta[T]{Type: Replaced, Object: obj})
			}
		}
	}
	if listed != nil {
		f.queueDeletions(listed, knownKeys)
	}

	f.latestRV = resourceVersion
	f.batch, f.batchLen, f.batchMore = true, f.order.len(), false
	if !f.populated {
		f.populated, f.batchInitial = true, true
	}
	f.cond.Signal()
	return errors.Join(errs...)
}

// queueDeletions adds a tombstone delete for every queued or known key not
// in listed. f.mu is held.
func (f *FIFO[T]) queueDeletions(listed map[string]struct{}, knownKeys []string) {
	f.order.each(func(key string) {
		if _, ok := listed[key]; ok {
			return
		}
		e := f.entries[key]
		last := e.deltas[len(e.deltas)-1]
		if last.Type != Deleted {
			f.queue(key, Delta[T]{Type: Deleted, Object: last.Object, FinalStateUnknown: true})
		}
	})
	for _, key := range knownKeys {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, queued := f.entries[key]; queued {
			continue // handled above, with its newer queued state
		}
		obj, _ := f.known.GetByKey(key)
		f.queue(key, Delta[T]{Type: Deleted, Object: obj, FinalStateUnknown: true})
	}
}

// Resync queues a Sync delta for every object the consumer knows that is not
// already queued (a queued object will be delivered anyway, and newer).
func (f *FIFO[T]) Resync() error {
	if f.known == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waitIdle()
	f.materialize()
	for _, key := range f.known.ListKeys() {
		if _, queued := f.entries[key]; queued {
			continue
		}
		if obj, ok := f.known.GetByKey(key); ok {
			f.queue(key, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

// waitIdle waits until no popped batch is being processed, so that the
// consumer's known objects include everything popped so far. f.mu is held.
func (f *FIFO[T]) waitIdle() {
	for f.inFlight && !f.closed {
		f.cond.Wait()
	}
}

// directBatch builds a Replace batch with one allocation for all its deltas.
func directBatch[T object.Object](list []T, keys []string) []Item[T] {
	items := make([]Item[T], 0, len(list))
	deltas := make([]Delta[T], len(list))
	for i, obj := range list {
		if keys[i] == "" {
			continue
		}
		deltas[i] = Delta[T]{Type: Replaced, Object: obj}
		items = append(items, Item[T]{Key: keys[i], Deltas: deltas[i : i+1 : i+1]})
	}
	return items
}

// materialize turns a pending direct batch into ordinary entries at the
// front of the queue, for operations that need per-key lookups. f.mu is held.
func (f *FIFO[T]) materialize() {
	if f.direct == nil {
		return
	}
	keys := make([]string, len(f.direct))
	for i, it := range f.direct {
		keys[i] = it.Key
		if e, ok := f.entries[it.Key]; ok { // a newer event for the same key
			e.deltas = append(append([]Delta[T](nil), it.Deltas...), e.deltas...)
			e.rvBefore = f.directRV
			continue
		}
		f.entries[it.Key] = &entry[T]{deltas: it.Deltas, rvBefore: f.directRV}
	}
	f.order.moveToFront(keys)
	f.batchLen += len(keys)
	f.direct = nil
}
