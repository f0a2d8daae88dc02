package controller

import (
	"time"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// queue is a controller's work queue: a workqueue.PriorityQueue, or with
// WithPriorityQueue(false) a RateLimitingQueue, which keeps no
// priorities, flows or reasons. It is the handler.PriorityQueue at the
// bottom of what sources feed, and it marks its own requeues with their
// reasons and, with WithFairness, every add with its namespace as flow.
type queue struct {
	pq   *workqueue.PriorityQueue[reconcile.Request]     // nil with WithPriorityQueue(false)
	rq   *workqueue.RateLimitingQueue[reconcile.Request] // set when pq is not
	fair bool
	gate *writeGate // nil with WithReadYourWrites(false) and no WithDropOwnEchoes
}

// newQueue builds the work queue at Start, so that a controller that is
// built but never started runs no goroutine.
func (c *Controller) newQueue() *queue {
	o := c.opts
	qopts := []workqueue.Option{workqueue.WithName(c.name), workqueue.WithClock(o.clock), workqueue.WithLogger(o.log)}
	if o.metrics != nil {
		qopts = append(qopts, workqueue.WithMetricsProvider(o.metrics))
	}
	if !o.priority {
		return &queue{rq: workqueue.NewRateLimiting(o.limiter, qopts...)}
	}
	if o.maxWait > 0 {
		qopts = append(qopts, workqueue.WithMaxWait(o.maxWait))
	}
	if o.debounce > 0 {
		qopts = append(qopts, workqueue.WithDebounce(o.debounce, o.debounceMax))
	}
	return &queue{pq: workqueue.NewPriority(o.limiter, qopts...), fair: o.fair}
}

// Add adds req from a source that gives no reasons: a custom Source.
func (q *queue) Add(req reconcile.Request) { q.AddWithOpts(handler.AddOpts{}, req) }

// AddWithOpts adds req as an event asks; an add without reasons is
// External.
func (q *queue) AddWithOpts(o handler.AddOpts, req reconcile.Request) {
	if q.pq == nil {
		q.rq.Add(req)
		return
	}
	if o.Reasons == 0 {
		o.Reasons = reconcile.External
	}
	q.pq.AddWithOpts(q.opts(req, workqueue.AddOpts{Priority: o.Priority, Reasons: workqueue.Reasons(o.Reasons)}), req)
}

// opts adds the request's flow to o when flows are on.
func (q *queue) opts(req reconcile.Request, o workqueue.AddOpts) workqueue.AddOpts {
	if q.fair {
		o.Flow = req.Namespace
	}
	return o
}

// requeueAfter adds req again after d, for Result.RequeueAfter, at the
// priority it has.
func (q *queue) requeueAfter(req reconcile.Request, d time.Duration) {
	if q.pq == nil {
		q.rq.AddAfter(req, d)
		return
	}
	q.pq.AddWithOpts(q.opts(req, workqueue.AddOpts{After: d, Reasons: workqueue.Reasons(reconcile.RequeueAfter)}), req)
}

// requeueRateLimited adds req again after its backoff, for an error, at
// the priority it has.
func (q *queue) requeueRateLimited(req reconcile.Request) {
	if q.pq == nil {
		q.rq.AddRateLimited(req)
		return
	}
	q.pq.AddWithOpts(q.opts(req, workqueue.AddOpts{RateLimited: true, Reasons: workqueue.Reasons(reconcile.ErrorRequeue)}), req)
}

// addHeld adds req again after the write gate held it, with the reasons
// it was taken for, at priority 0: the work it belongs to had its turn.
func (q *queue) addHeld(req reconcile.Request, why reconcile.Reasons) {
	if q.pq == nil {
		q.rq.Add(req)
		return
	}
	q.pq.AddWithOpts(q.opts(req, workqueue.AddOpts{Reasons: workqueue.Reasons(why)}), req)
}

// tracksEchoes and ownEcho are the write gate's (see eventQueue).
func (q *queue) tracksEchoes() bool { return q.gate != nil && q.gate.echoes != nil }

func (q *queue) ownEcho(req reconcile.Request, e echoEvent) bool {
	return q.tracksEchoes() && q.gate.ownEcho(req, e)
}

// get hands out the next request, its priority and the reasons it was
// queued for.
func (q *queue) get() (reconcile.Request, int, reconcile.Reasons, bool) {
	if q.pq == nil {
		req, shutdown := q.rq.Get()
		return req, 0, 0, shutdown
	}
	req, prio, why, shutdown := q.pq.GetWithPriorityAndReasons()
	return req, prio, reconcile.Reasons(why), shutdown
}

// Done, Forget, NumRequeues and ShutDown are the work queue's.

func (q *queue) Done(req reconcile.Request) {
	if q.pq == nil {
		q.rq.Done(req)
		return
	}
	q.pq.Done(req)
}

func (q *queue) Forget(req reconcile.Request) {
	if q.pq == nil {
		q.rq.Forget(req)
		return
	}
	q.pq.Forget(req)
}

func (q *queue) NumRequeues(req reconcile.Request) int {
	if q.pq == nil {
		return q.rq.NumRequeues(req)
	}
	return q.pq.NumRequeues(req)
}

func (q *queue) ShutDown() {
	if q.pq == nil {
		q.rq.ShutDown()
		return
	}
	q.pq.ShutDown()
}

// pending counts the requests queued and those held for their caches
// (WithReadYourWrites), for a test that waits for the controller to settle.
func (q *queue) pending() int {
	n := 0
	if q.pq == nil {
		n = q.rq.Len()
	} else {
		n = q.pq.Len()
	}
	if q.gate != nil {
		n += q.gate.held()
	}
	return n
}
