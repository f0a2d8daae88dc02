package controller

import (
	"hash/maphash"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
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
// latency is that of the oldest change the reconcile picks up. Every
// request of an initial list waits at once, so an entry is kept small: the
// request's 64-bit hash (two requests colliding would swap a latency
// sample, at odds of one in 10^11 among 10,000 waiting) and nanoseconds
// since base, 16 bytes against 56 for a Request and a time.Time.
type eventTimes struct {
	clock clock.PassiveClock
	base  time.Time
	seed  maphash.Seed
	mu    sync.Mutex
	first map[uint64]int64
}

func newEventTimes(c clock.PassiveClock) *eventTimes {
	return &eventTimes{clock: c, base: c.Now(), seed: maphash.MakeSeed(), first: map[uint64]int64{}}
}

// stampedQueue is the queue sources see when latency is measured.
type stampedQueue struct {
	q     handler.PriorityQueue
	times *eventTimes
}

func (q stampedQueue) Add(req reconcile.Request) { q.AddWithOpts(handler.AddOpts{}, req) }

func (q stampedQueue) AddWithOpts(o handler.AddOpts, req reconcile.Request) {
	t := q.times
	h, now := t.hash(req), int64(t.clock.Since(t.base))
	t.mu.Lock()
	if _, ok := t.first[h]; !ok {
		t.first[h] = now
	}
	t.mu.Unlock()
	q.q.AddWithOpts(o, req)
}

// tracksEchoes and ownEcho are the controller queue's (see eventQueue).
func (q stampedQueue) tracksEchoes() bool { return tracksEchoes(q.q) }

func (q stampedQueue) ownEcho(req reconcile.Request, e echoEvent) bool {
	return q.q.(ownWrites).ownEcho(req, e)
}

// take returns how long ago an event asked for req, and forgets it.
func (t *eventTimes) take(req reconcile.Request) (time.Duration, bool) {
	h := t.hash(req)
	t.mu.Lock()
	at, ok := t.first[h]
	delete(t.first, h)
	t.mu.Unlock()
	if !ok {
		return 0, false
	}
	return t.clock.Since(t.base) - time.Duration(at), true
}

// hash is req's key in first. maphash.Comparable would make each request
// escape to the heap: two allocations per request, ten thousand at once
// for an initial list.
func (t *eventTimes) hash(req reconcile.Request) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(req.Namespace)
	h.WriteByte('/') // no namespace holds one, so no two requests write the same bytes
	h.WriteString(req.Name)
	return h.Sum64()
}
