package workqueue

// Get blocks until an item is ready and hands it to the caller, who must
// call Done with it when finished. After shutdown Get keeps handing out
// the items still queued; once none are left it returns shutdown true
// and the caller, a worker, should stop.
//
// Get usually does not take the queue's lock: it takes the oldest item
// from a small lock-free ring (see readyRing) that a Get holding the lock
// fills with a batch of the oldest ready items. When metrics are recorded
// the ring stays empty (see refill), so every Get takes the lock and
// queue durations end when Get hands the item out.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	if item, low, ok := q.ring.take(); ok {
		// Top the ring up before it runs dry, if nobody holds the lock:
		// otherwise every worker would find it empty at once and queue
		// on the lock.
		if low && q.mu.TryLock() {
			q.sync()
			q.refill()
			q.mu.Unlock()
		}
		return item, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync()
	for {
		// The ring's items are older than the FIFO's.
		if item, _, ok := q.ring.take(); ok {
			return item, false
		}
		if q.fifo.len() > 0 {
			return q.handOut(), false
		}
		if q.closed.Load() && q.adds.settled() {
			return item, true // nothing queued, and nothing on its way
		}
		if testHookBeforeSleep != nil {
			testHookBeforeSleep()
		}
		q.asleep.Add(1)
		// An Add that pushed before the announcement above and saw no
		// sleeper left its item in the inbox: apply it before deciding to
		// sleep.
		q.sync()
		if q.readyLen() > 0 || q.closed.Load() && q.adds.settled() {
			q.stayAwake()
			continue
		}
		q.sleep()
		q.sync()
	}
}

// handOut takes the oldest item from the FIFO for the caller and moves a
// batch of the next ones into the ring for the next Gets; q.mu is held
// and the FIFO is not empty.
func (q *Queue[T]) handOut() T {
	e := q.fifo.pop()
	q.startProcessing(e.item, e.hash)
	q.refill()
	return e.item
}

// refill moves the oldest items of the FIFO into the ring while it has
// room; q.mu is held, and the takes so far are recorded (sync), which
// frees their cells. The items' states do not change: ready is ready,
// in the FIFO or the ring. With metrics the ring stays empty, so that
// every Get takes the lock and its queue duration is timed there.
func (q *Queue[T]) refill() {
	for q.metrics == nil && q.fifo.len() > 0 {
		next := q.fifo.peek()
		if !q.ring.put(next.item, next.hash) {
			return
		}
		q.fifo.pop()
	}
}

// testHookBeforeSleep, if set, runs in Get just before a worker
// announces that it is going to sleep: where a lock-free Add can slip in
// unnoticed.
var testHookBeforeSleep func()
