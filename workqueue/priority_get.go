package workqueue

import "time"

// Get blocks until an item is ready and hands it to the caller, who must
// call Done with it when finished: the overdue item that became ready
// first, else an item of the highest priority, the flows taking turns
// (see PriorityQueue). After shutdown Get keeps handing out the items
// still queued; once none are left it returns shutdown true.
func (q *PriorityQueue[T]) Get() (item T, shutdown bool) {
	item, _, _, shutdown = q.get()
	return item, shutdown
}

// GetWithPriority is Get that also returns the priority the item was
// queued at (before aging), as controller-runtime's GetWithPriority.
func (q *PriorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, _, shutdown = q.get()
	return item, priority, shutdown
}

// GetWithReasons is Get that also returns the reasons of the adds that
// queued the item since it was last handed out. They are cleared: the
// reasons of adds made while the item is processed come with its next
// hand-out.
func (q *PriorityQueue[T]) GetWithReasons() (item T, reasons Reasons, shutdown bool) {
	item, _, reasons, shutdown = q.get()
	return item, reasons, shutdown
}

// GetWithPriorityAndReasons is Get that returns both the priority
// (GetWithPriority) and the reasons (GetWithReasons), for a worker that
// carries the priority into what the item's processing queues next.
func (q *PriorityQueue[T]) GetWithPriorityAndReasons() (item T, priority int, reasons Reasons, shutdown bool) {
	return q.get()
}

func (q *PriorityQueue[T]) get() (item T, prio int, reasons Reasons, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready.n == 0 {
		if q.closed.Load() {
			return item, 0, 0, true
		}
		q.asleep.Add(1)
		q.sleep()
	}
	var now time.Duration
	if at, ok := q.ready.nextOverdue(); ok || q.metrics != nil {
		now = q.now()
		if ok && now-at >= q.maxWait {
			q.ready.promote(now - q.maxWait)
		}
	}
	id := q.ready.pop()
	st := q.items.at(id)
	item, prio, reasons = st.item, st.prio, st.reasons
	st.reasons = 0
	st.flags = processing // was dirty, and a dirty item does not wait
	q.processing++
	if q.metrics != nil {
		q.metrics.handedOut(item, id, now, st.readyAt, prio)
	}
	return item, prio, reasons, false
}

// Done tells the queue that the worker has finished item. If item was
// added while it was being processed, it is queued again, at the
// priority of those adds. Done for an item that is not being processed
// changes nothing and logs an error. Once Done returns, the queue holds
// no reference to item unless item is queued again or waits.
func (q *PriorityQueue[T]) Done(item T) {
	h := hashItem(q.seed, item)
	q.mu.Lock()
	defer q.mu.Unlock()
	id := q.items.find(h, item)
	if id == none || q.items.at(id).flags&processing == 0 {
		q.logger.Error(errNotProcessing, "Ignoring Done", "queue", q.name, "item", item)
		return
	}
	q.processing--
	st := q.items.at(id)
	st.flags &^= processing
	var now time.Duration
	if st.flags&dirty != 0 || q.metrics != nil {
		now = q.now()
	}
	switch {
	case st.flags&dirty != 0:
		q.ready.push(id, now)
		q.wakeWorker()
	case st.flags == 0:
		q.forget(id, h)
	}
	if q.metrics != nil {
		q.metrics.done(item, now)
	}
	q.checkDrained(q)
}

// forget removes item id, whose hash is h and which has no flag left;
// q.mu is held.
func (q *PriorityQueue[T]) forget(id int32, h uint64) {
	q.ready.flows.release(q.items.at(id).flow)
	q.items.remove(id, h)
}

// idle reports whether no item is ready or being processed; q.mu is held.
func (q *PriorityQueue[T]) idle() bool { return q.processing == 0 && q.ready.n == 0 }

// ShutDown stops the queue: later adds are dropped, items waiting for a
// delay are discarded, and Get returns shutdown true once the items
// already queued have been handed out. It waits for the queue's own
// goroutines, not for workers, and releases a ShutDownWithDrain.
func (q *PriorityQueue[T]) ShutDown() { q.shutDown(q, false) }

// ShutDownWithDrain stops the queue like ShutDown and then waits until
// every queued item has been handed out and Done, including items
// requeued by Done. Workers must keep calling Get and Done until Get
// reports shutdown; a concurrent ShutDown ends the wait early.
func (q *PriorityQueue[T]) ShutDownWithDrain() { q.shutDown(q, true) }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *PriorityQueue[T]) ShuttingDown() bool { return q.closed.Load() }

// closing is the queue's part of the first shutdown (stopper): it drops
// the items waiting for a deadline; q.mu is held.
func (q *PriorityQueue[T]) closing() {
	q.waiting.drop(func(w waitState) {
		st := q.items.at(w.id)
		if st.flags &^= waiting; st.flags == 0 {
			q.forget(w.id, hashItem(q.seed, st.item))
		}
	})
}

// sync does nothing (stopper): a PriorityQueue's adds take the lock, so
// none is on its way when the lock is held.
func (q *PriorityQueue[T]) sync() {}

// promoteDue makes the items whose deadline is not after now ready, in
// deadline order. It returns how long until the next deadline, and false
// if nothing is waiting. q.mu is held.
func (q *PriorityQueue[T]) promoteDue(now time.Duration) (next time.Duration, ok bool) {
	for {
		s, slot, next, ok := q.waiting.popDue(now)
		if s == nil {
			return next, ok
		}
		if s.live {
			q.makeDirty(s.val.id, q.items.at(s.val.id)) // cancels the slot
		}
		q.waiting.release(slot)
	}
}
