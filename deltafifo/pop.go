package deltafifo

import (
	"context"
	"errors"
)

// Pop waits until a batch is ready, then calls process with it and returns
// what process returned. The batch is one key with all its deltas, or, after
// a Replace, every key that was queued then (see Batch). It counts as
// processed when process returns; if the error wraps ErrRequeue the items go
// back to the front of the queue, merged with anything queued for the same
// keys since. Pop returns ctx.Err() when ctx is done and ErrClosed once the
// FIFO is closed, without calling process. A processed batch, unless
// requeued, is then reported to the WithProgress function, after Pop has
// released the FIFO's lock.
//
// The batch's slices are reused after process returns: do not keep them.
func (f *FIFO[T]) Pop(ctx context.Context, process func(Batch[T]) error) error {
	f.mu.Lock()
	f.watch(ctx)
	for f.order.len() == 0 && !f.batch && !f.closed && ctx.Err() == nil {
		f.cond.Wait()
	}
	switch {
	case f.closed:
		f.mu.Unlock()
		return ErrClosed
	case ctx.Err() != nil:
		f.mu.Unlock()
		return ctx.Err()
	}
	b := f.take()
	f.mu.Unlock()

	err := process(b)

	f.mu.Lock()
	f.inFlight = false
	f.cond.Broadcast() // a Replace may be waiting for the batch to finish
	if errors.Is(err, ErrRequeue) {
		f.requeue(b)
		f.recycle()
		f.mu.Unlock()
		return err // the store is where it was: no progress to report
	}
	f.recycle()
	if b.InitialList && !b.More {
		f.synced = true
	}
	if len(f.popped) > 4096 {
		f.popped = nil // a large batch's slice is not worth keeping
	}
	clear(f.popped) // drop references to the objects
	if f.progress == nil {
		f.mu.Unlock()
		return err
	}
	rv := f.storeRV()
	f.mu.Unlock()
	f.progress(rv)
	return err
}

// take removes the next batch from the queue. f.mu is held.
func (f *FIFO[T]) take() Batch[T] {
	n, b := 1, Batch[T]{}
	if f.batch {
		n, b.InitialList, b.More = f.batchLen, f.batchInitial, f.batchMore
		f.batch, f.batchLen, f.batchInitial, f.batchMore = false, 0, false, false
	}
	items := f.popped[:0]
	if f.direct != nil {
		items, f.inFlightRV = f.direct, f.directRV
		f.direct = nil
	}
	for range n {
		key := f.order.pop()
		e := f.entries[key]
		if len(items) == 0 {
			f.inFlightRV = e.rvBefore
		}
		delete(f.entries, key)
		items = append(items, Item[T]{Key: key, Deltas: e.deltas})
		f.poppedEntries = append(f.poppedEntries, e)
	}
	if len(items) == 0 { // an empty relist still marks the end of a list
		f.inFlightRV = f.latestRV
	}
	if f.order.len() == 0 && len(f.entries) == 0 && cap(f.order.keys) > 4096 {
		// Maps and slices keep their peak size; after a large relist has
		// drained, let the garbage collector have that memory back.
		f.entries, f.order = make(map[string]*entry[T]), keyQueue{}
	}
	f.inFlight = true
	f.popped = items
	b.Items = items
	return b
}

// requeue puts a failed batch back at the front, ahead of newer deltas for
// the same keys. f.mu is held.
func (f *FIFO[T]) requeue(b Batch[T]) {
	keys := make([]string, 0, len(b.Items))
	for _, it := range b.Items {
		keys = append(keys, it.Key)
		if e, queued := f.entries[it.Key]; queued {
			e.deltas = append(append([]Delta[T](nil), it.Deltas...), e.deltas...)
			e.rvBefore = f.inFlightRV
			continue
		}
		f.entries[it.Key] = &entry[T]{deltas: append([]Delta[T](nil), it.Deltas...), rvBefore: f.inFlightRV}
	}
	f.order.moveToFront(keys)
	if len(b.Items) > 1 || b.InitialList || b.More {
		f.batch, f.batchLen, f.batchInitial, f.batchMore = true, len(b.Items), b.InitialList, b.More
	}
	f.popped = nil // the batch's slices now belong to the entries
	f.cond.Signal()
}

// watch makes sure a cancellation of ctx wakes Pop. Registering costs an
// allocation, so it is done once per context, not once per Pop. f.mu is held.
func (f *FIFO[T]) watch(ctx context.Context) {
	if ctx == f.watchedCtx {
		return
	}
	if f.stopWatch != nil {
		f.stopWatch()
	}
	f.watchedCtx = ctx
	f.stopWatch = context.AfterFunc(ctx, func() {
		f.mu.Lock()
		f.cond.Broadcast()
		f.mu.Unlock()
	})
}

// recycle keeps the entries of the batch just processed for reuse: their
// deltas are no longer referenced once process has returned. f.mu is held.
func (f *FIFO[T]) recycle() {
	for i, e := range f.poppedEntries {
		if len(f.free) < maxFree {
			*e = entry[T]{}
			f.free = append(f.free, e)
		}
		f.poppedEntries[i] = nil
	}
	f.poppedEntries = f.poppedEntries[:0]
	if cap(f.poppedEntries) > maxFree {
		f.poppedEntries = nil
	}
}
