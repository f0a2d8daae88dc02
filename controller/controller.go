package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/observe"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// Controller reconciles the requests its sources produce, with a bounded
// number of workers, never the same request on two workers at once.
type Controller struct {
	name   string
	r      reconcile.Reconciler
	opts   *options
	queue  *queue
	log    logr.Logger
	times  *eventTimes // set when the metrics record event latency
	stages []stage     // each feature's part in a reconcile, set by Start
	shard  *sharding   // set with WithSharding

	mu        sync.Mutex
	watches   []*watch
	started   bool
	stopped   bool
	q         handler.PriorityQueue // what sources feed, set by Start
	attachCtx context.Context       // what sources are attached with, set by Start
}

// New returns a controller named name (used in logs and metrics; it should
// be unique in a process) that calls r.
func New(name string, r reconcile.Reconciler, opts ...Option) (*Controller, error) {
	o := newOptions(opts)
	switch {
	case name == "":
		return nil, errors.New("controller: empty name")
	case r == nil:
		return nil, fmt.Errorf("controller %s: nil reconcile.Reconciler", name)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("controller %s: %w", name, err)
	}
	if o.limiter == nil {
		o.limiter = workqueue.DefaultControllerRateLimiter[reconcile.Request]()
	}
	c := &Controller{
		name: name,
		r:    r,
		opts: o,
		log:  o.log.WithValues("controller", name),
	}
	if o.ring != nil {
		c.shard = newSharding(c)
	}
	return c, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string { return c.name }

// Start connects the sources, waits until their caches have synced (an
// error names those that did not), and runs the workers until ctx is done.
// Then it stops taking new work, lets reconciles in progress finish,
// detaches every source and returns. Sources watched after Start are connected
// at once and not waited for (see Watch). A controller starts once.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %s: started twice", c.name)
	}
	c.started = true
	hooks := observe.From(ctx)
	if hooks != nil && hooks.ReadYourWritesBound > 0 {
		c.opts.readYourWritesWait = min(c.opts.readYourWritesWait, hooks.ReadYourWritesBound)
	}
	c.queue = c.newQueue()
	defer c.queue.ShutDown()
	if c.opts.readYourWrites || c.opts.dropEchoes || c.opts.priority {
		c.queue.gate = newWriteGate(c)
		defer c.queue.gate.close()
	}
	var q handler.PriorityQueue = c.queue
	if _, ok := c.opts.reconcileMetrics.(EventLatencyMetrics); ok {
		c.times = newEventTimes(c.opts.clock)
		q = stampedQueue{q: c.queue, times: c.times}
	}
	c.q, c.attachCtx = q, ctx
	c.stages = c.newStages(hooks)
	defer c.detachAll()
	sources := make([]informer.Syncer, 0, len(c.watches))
	for _, w := range c.watches {
		if err := c.attach(w); err != nil {
			c.mu.Unlock()
			return err
		}
		sources = append(sources, w.src)
	}
	c.mu.Unlock()

	if err := c.waitForSync(ctx, sources); err != nil {
		return err
	}
	c.log.Info("starting workers", "workers", c.opts.workers)
	if m := c.opts.reconcileMetrics; m != nil {
		m.Started(c.name, c.opts.workers)
	}
	if hooks != nil && hooks.Started != nil {
		hooks.Started(c.name, c.queue.Add, c.pending)
	}
	var wg sync.WaitGroup
	if c.shard != nil {
		wg.Go(func() { c.shard.unpark(ctx) })
	}
	for range c.opts.workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.log.Info("stopping: waiting for reconciles in progress")
	c.queue.ShutDown() // wakes idle workers; busy ones finish their request
	wg.Wait()
	return nil
}

func (c *Controller) waitForSync(ctx context.Context, sources []informer.Syncer) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.cacheSyncTimeout)
	defer cancel()
	if err := informer.WaitForCacheSync(ctx, sources...); err != nil {
		return fmt.Errorf("controller %s: after %s: %w", c.name, c.opts.cacheSyncTimeout, err)
	}
	return nil
}

// pending counts the requests queued, held for their caches, or parked
// until the ring lets this replica reconcile them, for a test that waits
// for the controller to settle.
func (c *Controller) pending() int {
	n := c.queue.pending()
	if c.shard != nil {
		c.shard.mu.Lock()
		n += len(c.shard.parked)
		c.shard.mu.Unlock()
	}
	return n
}
