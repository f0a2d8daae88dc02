package deltafifo

import (
	"errors"
	"fmt"
)

// AppendList queues part of a complete list that a later Replace ends:
// the objects of a large list can then reach the consumer while the rest
// is still arriving, and the producer need not hold every one of them
// until the end. first starts a new list, dropping the parts of one that
// was never ended (a list that failed half way). Each listed object gets a
// Replaced delta, as from Replace; Replace(rest, resourceVersion) then
// takes the parts and rest together as the list: it infers deletions only
// for objects in none of them.
//
// A relist into a FIFO whose consumer already holds objects is still
// applied atomically only if it comes whole: the parts of a list are
// handed over as they come (each Batch has More set), so a reader of the
// cache would see the old and the new list mixed. Reflectors therefore
// use AppendList only for the first list, while no reader is served yet.
func (f *FIFO[T]) AppendList(part []T, first bool) error {
	keys := make([]string, len(part))
	var errs []error
	for i, obj := range part {
		key, err := keyOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("deltafifo: AppendList: %s: %w", describe(obj), err))
		}
		keys[i] = key
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.waitIdle()
	restart := first || !f.listing
	if restart {
		f.startList()
	}
	if f.listKeys != nil {
		for _, key := range keys {
			if key != "" {
				f.listKeys[key] = struct{}{}
			}
		}
	}
	if f.order.len() == 0 && (f.direct == nil || !restart) {
		// Nothing is pending but this list's earlier parts: extend their
		// batch (startList made a restart track its keys otherwise).
		f.direct = append(f.direct, directBatch(part, keys)...)
		f.directRV = f.latestRV
	} else {
		f.materialize()
		for i, obj := range part {
			if keys[i] != "" {
				f.queue(keys[i], Delta[T]{Type: Replaced, Object: obj})
			}
		}
	}
	f.batch, f.batchLen, f.batchMore = true, f.order.len(), true
	f.batchInitial = !f.populated
	f.cond.Signal()
	return errors.Join(errs...)
}

// startList begins collecting a list's parts. Deletions have to be
// inferred at its end only if the consumer holds objects or something is
// queued; otherwise (the first list) the keys listed need not be kept.
// f.mu is held.
func (f *FIFO[T]) startList() {
	f.listing, f.listKeys = true, nil
	known := f.known != nil && len(f.known.ListKeys()) > 0
	if known || f.order.len() > 0 || f.direct != nil {
		f.listKeys = make(map[string]struct{})
	}
}
