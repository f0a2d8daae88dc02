package controller

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/steadyctl/steady/reconcile"
)

// processNext takes one request and reconciles it; false means stop.
func (c *Controller) processNext(ctx context.Context) bool {
	req, prio, why, shutdown := c.queue.get()
	if shutdown {
		return false
	}
	defer c.queue.Done(req)
	if ctx.Err() != nil {
		return false // stopping: leave queued work alone
	}
	var sh shardStart
	if c.shard != nil {
		var ok bool
		if sh.hash, sh.done, ok = c.shard.begin(req, &why); !ok {
			return true // parked until the ring changes, or another replica's
		}
	}
	var h hold
	if g := c.queue.gate; g != nil {
		if h = g.check(req, why); h.held {
			if sh.done != nil {
				sh.done()
				c.shard.ended(req, sh.hash, true) // it comes back
			}
			return true // added again when its caches catch up
		}
		why |= h.why
	}
	if c.times != nil {
		if d, ok := c.times.take(req); ok {
			c.opts.reconcileMetrics.(EventLatencyMetrics).EventToReconcile(c.name, d)
		}
	}
	c.reconcileOne(ctx, req, prio, why, h, sh)
	return true
}

// shardStart is a sharded controller's start of a reconcile on its ring:
// the request's hash and the func that ends it (nil when not sharded).
type shardStart struct {
	hash uint64
	done func()
}

// reconcileOne runs the reconciler, with each of the controller's stages
// before and after it (see stage), and settles its outcome.
func (c *Controller) reconcileOne(ctx context.Context, req reconcile.Request, prio int, why reconcile.Reasons, h hold, sh shardStart) {
	r := &attempt{req: req, prio: prio, why: why, hold: h, shard: sh,
		log: c.log.WithValues("namespace", req.Namespace, "name", req.Name, "reconcileID", string(uuid.NewUUID())),
		// In-progress reconciles are allowed to finish on shutdown, so they
		// do not inherit the controller's cancellation; WithReconcileTimeout
		// bounds them.
		ctx: reconcile.ContextWithControllerName(context.WithoutCancel(ctx), c.name)}
	for _, s := range c.stages {
		s.before(r)
	}
	rctx := logr.NewContext(r.ctx, r.log)
	if c.opts.reconcileTimeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(rctx, c.opts.reconcileTimeout)
		defer cancel()
	}
	r.result, r.panicked, r.err = c.call(rctx, req)
	for i := len(c.stages) - 1; i >= 0; i-- {
		c.stages[i].after(r)
	}
	c.settle(r)
}

// settle turns an attempt's outcome into queue actions:
//
//   - error: requeue with the rate limiter's backoff (a RequeueAfter returned
//     with an error is ignored: the error wins, as in controller-runtime);
//   - terminal error (reconcile.TerminalError): log, forget the backoff, no retry;
//   - panic (when recovered): treated as an error, logged with the stack;
//   - Result.RequeueAfter: forget the backoff, add again after that long;
//   - success: forget the backoff.
func (c *Controller) settle(r *attempt) {
	req, err := r.req, r.err
	switch {
	case err != nil && reconcile.IsTerminal(err):
		c.queue.Forget(req)
		r.log.Error(err, "reconcile failed terminally; not retrying")
	case err != nil:
		c.queue.requeueRateLimited(req)
		r.log.Error(err, "reconcile failed; retrying with backoff", "retries", c.queue.NumRequeues(req))
	case r.result.RequeueAfter > 0:
		c.queue.Forget(req)
		c.queue.requeueAfter(req, r.result.RequeueAfter)
	default:
		c.queue.Forget(req)
	}
}

func (c *Controller) call(ctx context.Context, req reconcile.Request) (result reconcile.Result, panicked bool, err error) {
	if c.opts.recoverPanic {
		defer func() {
			if r := recover(); r != nil {
				err, panicked = fmt.Errorf("panic in Reconcile: %v\n%s", r, debug.Stack()), true
			}
		}()
	}
	result, err = c.r.Reconcile(ctx, req)
	return result, false, err
}

// writeMetrics calls f with the controller's metrics if they record the
// write gate's.
func (c *Controller) writeMetrics(f func(WriteMetrics)) {
	if m, ok := c.opts.reconcileMetrics.(WriteMetrics); ok {
		f(m)
	}
}

// LoggerFrom returns the logger of the reconcile running with ctx, carrying
// the controller name, the request, the reconcile ID and, with the
// priority queue, the reasons the request was queued for (key "reasons",
// e.g. "primary_updated,owned_deleted").
func LoggerFrom(ctx context.Context) logr.Logger { return logr.FromContextOrDiscard(ctx) }
