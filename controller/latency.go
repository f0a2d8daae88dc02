package controller

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/handler"
)

// EventLatencyMetrics is a Metrics that also records how long requests wait
// between the event that caused them and the start of their reconcile.
// metrics.Reconcile implements it.
type EventLatencyMetrics interface {
	Metrics
	// EventToReconcile is called when a reconcile starts for a request
	// that an event enqueued, with the time since the event was delivered.
	EventToReconcile(controller string, d time.Duration)
}

// eventTimes remembers when an event first asked for each waiting request.
// Later events for the same waiting request do not move the time: the
// latency is that of the oldest change the reconcile picks up.
type eventTimes struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	first map[Request]time.Time
}

// stampedQueue is the queue sources see when latency is measured.
type stampedQueue struct {
	q     handler.PriorityQueue
	times *eventTimes
}

func (q stampedQueue) Add(req Request) { q.AddWithOpts(handler.AddOpts{}, req) }

func (q stampedQueue) AddWithOpts(o handler.AddOpts, req Request) {
	q.times.mu.Lock()
	if _, ok := q.times.first[req]; !ok {
		q.times.first[req] = q.times.clock.Now()
	}
	q.times.mu.Unlock()
	q.q.AddWithOpts(o, req)
}

// tracksEchoes and ownEcho are the controller queue's (see eventQueue).
func (q stampedQueue) tracksEchoes() bool { return tracksEchoes(q.q) }

func (q stampedQueue) ownEcho(req Request, e echoEvent) bool {
	return q.q.(ownWrites).ownEcho(req, e)
}

// take returns how long ago an event asked for req, and forgets it.
func (t *eventTimes) take(req Request) (time.Duration, bool) {
	t.mu.Lock()
	at, ok := t.first[req]
	delete(t.first, req)
	t.mu.Unlock()
	if !ok {
		return 0, false
	}
	return t.clock.Since(at), true
}
