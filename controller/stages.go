package controller

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/internal/observe"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/writes"
)

// attempt is one reconcile on its way through the controller's stages: the
// request as it was taken, the context and logger the stages build for
// the reconciler, and what the reconciler returned.
type attempt struct {
	req   reconcile.Request
	prio  int
	why   reconcile.Reasons
	hold  hold
	shard shardStart

	ctx   context.Context
	log   logr.Logger
	start time.Time // when the reconciler was called, with metrics

	result   reconcile.Result
	err      error
	panicked bool
}

// comesBack reports whether the request is queued again after this attempt:
// for a retried error, or a RequeueAfter.
func (r *attempt) comesBack() bool {
	return (r.err != nil && !reconcile.IsTerminal(r.err)) || r.result.RequeueAfter > 0
}

// A stage is one feature's part in every reconcile. before runs ahead of
// the reconciler, in the order of the controller's stages, and may add to
// the attempt's context and logger; after runs once the reconciler has
// returned, in the reverse order. A controller has the stages of the
// features it was built with (newStages), so a feature that is off costs
// nothing per reconcile.
type stage interface {
	before(r *attempt)
	after(r *attempt)
}

// newStages returns the stages of c's features, outermost first: the hooks
// of a test that observes the controller, the ring of a sharded
// controller, the reconcile metrics, the reasons, and the write gate with
// the reconcile's own writes, which must be innermost so that the gate's
// put-off echoes are queued before the shard is told whether the request
// comes back.
func (c *Controller) newStages(hooks *observe.Hooks) []stage {
	var stages []stage
	if hooks != nil {
		stages = append(stages, observeStage{c: c, h: hooks})
	}
	if c.shard != nil {
		stages = append(stages, shardStage{c})
	}
	if m := c.opts.reconcileMetrics; m != nil {
		stages = append(stages, metricsStage{c: c, m: m})
	}
	stages = append(stages, reasonsStage{c})
	if c.queue.gate != nil || c.opts.readYourWrites {
		stages = append(stages, writesStage{c})
	}
	return stages
}

// observeStage tells a test's hooks of each reconcile (package
// internal/observe) and marks its context, so that the test knows which
// reconcile made each request.
type observeStage struct {
	c *Controller
	h *observe.Hooks
}

func (s observeStage) before(r *attempt) {
	r.ctx = observe.ContextWithReconcile(r.ctx, observe.Reconcile{Controller: s.c.name, Request: r.req})
	if s.h.Begin != nil {
		s.h.Begin(s.c.name, r.req)
	}
}

func (s observeStage) after(r *attempt) {
	if s.h.End != nil {
		s.h.End(s.c.name, r.req, r.result, r.err)
	}
}

// shardStage ends a sharded controller's hold on the request's place on
// the ring, saying whether the request comes back.
type shardStage struct{ c *Controller }

func (shardStage) before(*attempt) {}

func (s shardStage) after(r *attempt) {
	if r.shard.done != nil {
		r.shard.done()
		s.c.shard.ended(r.req, r.shard.hash, r.comesBack())
	}
}

// metricsStage counts the reconcile, its outcome and its duration.
type metricsStage struct {
	c *Controller
	m Metrics
}

func (s metricsStage) before(r *attempt) {
	s.m.Begin(s.c.name)
	r.start = time.Now()
}

func (s metricsStage) after(r *attempt) {
	outcome := "success"
	switch {
	case r.err != nil:
		outcome = "error"
	case r.result.RequeueAfter > 0:
		outcome = "requeue_after"
	}
	s.m.End(s.c.name, outcome, reconcile.IsTerminal(r.err), r.panicked, time.Since(r.start))
}

// reasonsStage puts the reasons the request was queued for (none with a
// plain queue) into its context, its logger and the reason metrics.
type reasonsStage struct{ c *Controller }

func (s reasonsStage) before(r *attempt) {
	if r.why == 0 {
		return
	}
	r.log = r.log.WithValues("reasons", r.why)
	r.ctx = reconcile.ContextWithReasons(r.ctx, r.why)
	if m, ok := s.c.opts.reconcileMetrics.(ReasonMetrics); ok {
		m.Reasons(s.c.name, r.why)
	}
}

func (reasonsStage) after(*attempt) {}

// writesStage is read-your-writes: it says in the logger and the metrics
// how long the request was held for its caches, records the reconcile's
// writes for the gate (at the attempt's priority, for the echoes), keeps them
// for the reconcile's own reads, and tells the gate when the reconcile
// begins and ends, so that the echoes of its writes are recognized.
type writesStage struct{ c *Controller }

func (s writesStage) before(r *attempt) {
	c, g := s.c, s.c.queue.gate
	if h := r.hold; h.wasHeld {
		r.log = r.log.WithValues("awaitedResourceVersion", h.awaitedRV, "heldFor", h.waited)
		if h.timedOut {
			r.log.Info("reconciling although the cache does not show this controller's last write yet: waited the bound", "bound", c.opts.readYourWritesWait)
		}
		c.writeMetrics(func(m WriteMetrics) { m.HoldEnded(c.name, h.waited, h.timedOut) })
	}
	if g != nil {
		r.ctx = writes.ContextWithRecorder(r.ctx, &recorder{g, r.req, r.prio})
	}
	if c.opts.readYourWrites {
		r.ctx = writes.ContextWithLog(r.ctx)
	}
	if g != nil {
		g.begin(r.req, r.prio)
	}
}

func (s writesStage) after(r *attempt) {
	if g := s.c.queue.gate; g != nil {
		g.end(r.req)
	}
}
