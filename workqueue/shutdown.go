package workqueue

// ShutDown stops the queue: later adds are dropped, items waiting for a
// delay are discarded, and Get returns shutdown true once the items
// already queued have been handed out. ShutDown does not wait for
// workers, but it does wait for the queue's own goroutines to stop, and
// it releases a ShutDownWithDrain that is still waiting.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	q.draining = false
	q.drained.Broadcast()
	q.mu.Unlock()
	q.wg.Wait()
}

// ShutDownWithDrain stops the queue like ShutDown and then waits until
// every queued item has been handed out and every handed-out item is
// Done, including items requeued by Done because they were added during
// processing. Workers must keep calling Get and Done until Get reports
// shutdown, or ShutDownWithDrain waits forever; a concurrent ShutDown
// ends the wait early.
func (q *Queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shutDownLocked()
	q.draining = true
	q.sync()
	for q.draining && !q.idle() {
		q.drained.Wait()
		q.sync()
	}
	q.mu.Unlock()
	q.wg.Wait()
}

func (q *Queue[T]) shutDownLocked() {
	if q.closed.Load() {
		return
	}
	q.closed.Store(true) // Add reads it without the lock; see wakeAppliers
	q.adds.seal()
	q.dropWaiting()
	close(q.stop)
	q.wakeAll()
}

// wakeAll wakes every worker asleep in Get; q.mu is held.
func (q *Queue[T]) wakeAll() {
	q.waking += int(q.asleep.Swap(0))
	q.ready.Broadcast()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.closed.Load() }
