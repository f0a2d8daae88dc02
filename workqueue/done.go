package workqueue

// Done tells the queue that the worker has finished item. If item was
// added while it was being processed, it is queued again. Done for an
// item that is not being processed changes nothing and logs an error.
//
// Done usually does not take the queue's lock: it leaves item in a small
// lock-free inbox that the next Get, Len or shutdown to take the lock
// applies first, so each observes it as if it had happened when Done
// returned. (An Add in between sees the item still processing, which has
// the same outcome: it is queued again, once.) Done applies it itself
// when a worker sleeps in Get or a ShutDownWithDrain waits, when the inbox
// is full, and when metrics are recorded (so that work durations end when
// Done is called).
func (q *Queue[T]) Done(item T) {
	h := hashItem(q.seed, item)
	if q.metrics == nil && q.dones.push(doneCall[T]{item, q.ring.takes()}, h) {
		q.wakeAppliers()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	q.finish(item, h)
}

// wakeAppliers makes sure that an Add or Done just left in an inbox is
// applied by someone: sleeping workers and a draining shutdown would not
// come by to apply it, so if any exists this applies it itself. Each of
// them announces itself before it last looks at the inboxes, and this
// looks for them after the push; with sequentially consistent atomics on
// both sides, at least one side sees the other. An Add that raced with
// shutdown is applied at once too, so that it is not left behind once the
// workers have stopped. Otherwise the next Get that takes the lock (to top
// the ring up, or because it is empty) applies it, or any other call that
// syncs.
func (q *Queue[T]) wakeAppliers() {
	if q.asleep.Load() == 0 && !q.draining.Load() && !q.closed.Load() {
		return
	}
	q.mu.Lock()
	q.sync()
	q.mu.Unlock()
}

// sync applies the Done and Add calls waiting in the inboxes and records
// the takes from the ring; q.mu is held. The calls that look at more than
// one item, or make an item ready, sync first, so each observes those
// calls and takes as if they had happened when they returned, and ready
// items stay in the order they were added. (state records the takes when
// it needs them.)
//
// Dones go first. An Add and a Done of the same item in the inboxes end
// the same whichever came first: the item is queued once, either because
// the Add finds it processing and Done requeues it, or because Done ends
// its processing and the Add queues it anew.
func (q *Queue[T]) sync() {
	q.applyDones()
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

// doneCall is a Done call waiting in the inbox: the item, and how far the
// ring had been taken when Done was called (readyRing.takes).
type doneCall[T any] struct {
	item  T
	takes uint64
}

// applyDones applies the Done calls waiting in the inbox; q.mu is held.
// Each Done first has the takes recorded that happened before it was
// called: the worker's own take of its item, but no take that a Done
// called before the Get of its item could claim as its own.
func (q *Queue[T]) applyDones() {
	for d, h, ok := q.dones.pop(); ok; d, h, ok = q.dones.pop() {
		q.recordTakes(d.takes)
		q.finish(d.item, h)
	}
	q.dones.release()
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
	if q.draining.Load() && q.idle() {
		q.drained.Broadcast()
	}
}

// recordTakes records the items taken from the ring before position end
// as being processed; q.mu is held.
func (q *Queue[T]) recordTakes(end uint64) {
	for {
		item, h, ok := q.ring.nextTaken(end)
		if !ok {
			return
		}
		q.startProcessing(item, h)
	}
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
