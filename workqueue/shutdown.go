package workqueue

// ShutDown stops the queue: later adds are dropped, items waiting for a
// delay are discarded, and Get returns shutdown true once the items
// already queued have been handed out. ShutDown does not wait for
// workers, but it does wait for the queue's own goroutines to stop, and
// it releases a ShutDownWithDrain that is still waiting.
func (q *Queue[T]) ShutDown() { q.shutDown(q, false) }

// ShutDownWithDrain stops the queue like ShutDown and then waits until
// every queued item has been handed out and every handed-out item is
// Done, including items requeued by Done because they were added during
// processing. Workers must keep calling Get and Done until Get reports
// shutdown, or ShutDownWithDrain waits forever; a concurrent ShutDown
// ends the wait early.
func (q *Queue[T]) ShutDownWithDrain() { q.shutDown(q, true) }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.closed.Load() }

// closing is the queue's part of the first shutdown (stopper); q.mu is
// held and closed was just set. Sealing the inbox after setting closed
// leaves no Add unnoticed: see wakeAppliers.
func (q *Queue[T]) closing() {
	q.adds.seal()
	q.dropWaiting()
}
