package workqueue

// Done tells the queue that the worker has finished item. If item was
// added while it was being processed, it is queued again. Done for an
// item that is not being processed changes nothing and logs an error.
//
// Once Done returns, the queue holds no reference to item unless item is
// queued again or waits for a delay, so a queue of pointers does not keep
// finished objects alive. Done takes the queue's lock for that: the work
// it does there is short, and Get seldom needs the lock.
func (q *Queue[T]) Done(item T) {
	h := hashItem(q.seed, item)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	q.finish(item, h)
}

// sync applies the Add calls waiting in the inbox and records the takes
// from the ring; q.mu is held. The calls that look at more than one item,
// or make an item ready, sync first, so each observes those calls and
// takes as if they had happened when they returned, and ready items stay
// in the order they were added. (state records the takes when it needs
// them.)
func (q *Queue[T]) sync() {
	q.applyAdds()
	q.recordTakes(q.ring.takes())
}

// applyAdds applies the Add calls waiting in the inbox, oldest first;
// q.mu is held.
//
// An Add takes effect when it claims its cell, so the takes from the ring
// that matter to it are those made before then: a take after it only
// hands out an item the Add had already found queued. Reading how far
// Adds have claimed and then how far the ring has been taken bounds both
// for every Add claimed so far, so those are applied with the takes
// recorded once, instead of state reading the ring's take counter, which
// the workers write, once for every Add of a queued item. An Add claimed
// after that read goes through state as a locked Add does.
func (q *Queue[T]) applyAdds() {
	claimed := q.adds.claimed()
	if q.adds.deq == claimed {
		return // nothing claimed since the last drain
	}
	q.recordTakes(q.ring.takes())
	for {
		early := q.adds.deq < claimed
		item, h, ok := q.adds.pop()
		if !ok {
			break
		}
		if early {
			q.makeDirty(item, h, q.items.upsert(h, item))
		} else {
			q.makeDirty(item, h, q.state(item, h))
		}
	}
	q.adds.release()
}

// finish applies Done(item); q.mu is held.
func (q *Queue[T]) finish(item T, h uint64) {
	i := q.items.find(h, item)
	if i < 0 || q.items.at(i).flags&processing == 0 {
		q.logger.Error(errNotProcessing, "Ignoring Done", "queue", q.name, "item", item)
		return
	}
	q.processing--
	st := q.items.at(i)
	st.flags &^= processing
	switch {
	case st.flags&dirty != 0:
		q.fifo.push(item, h)
		q.wakeWorker()
	case st.flags == 0:
		q.items.deleteAt(i)
	}
	if q.metrics != nil {
		q.metrics.done(item, q.now())
	}
	q.checkDrained(q)
}

// recordTakes records the items taken from the ring before position end
// as being processed, and clears their cells; q.mu is held.
func (q *Queue[T]) recordTakes(end uint64) {
	for {
		item, h, ok := q.ring.nextTaken(end)
		if !ok {
			break
		}
		q.startProcessing(item, h)
	}
	q.ring.clearTaken()
}

// startProcessing records that a worker has item, whose hash is h: it
// was ready, in the FIFO or the ring; q.mu is held.
func (q *Queue[T]) startProcessing(item T, h uint64) {
	// A ready item is in the table, dirty and nothing else.
	*q.items.at(q.items.find(h, item)) = itemState{flags: processing}
	q.processing++
	if q.metrics != nil {
		q.metrics.handedOut(item, q.now())
	}
}
