package controller

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
)

// watch is one of a controller's sources and, once attached, how to stop it.
type watch struct {
	src    Source
	gate   *gate
	detach func() // set while attached
}

// Watch adds a source of requests.
//
// Before Start, the source is connected at Start, which waits for it to
// sync before running the workers. On a running controller it is connected
// at once: its initial state (for an informer source, a create for every
// cached object) is enqueued as usual, and the controller does not wait for
// it; informer.WaitForCacheSync(ctx, src) does, as a Source is a Syncer.
// Watching a source that is already watched is an error, and so is Watch
// after the controller stopped.
//
// Unwatch removes a source again: a controller's watches can follow what it
// finds at run time (a custom resource definition installed later, say).
// This is controller-runtime's Controller.Watch, which also works after
// Start, and which has no way back.
func (c *Controller) Watch(src Source) error {
	if src == nil {
		return fmt.Errorf("controller %s: Watch(nil)", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.stopped:
		return fmt.Errorf("controller %s: Watch(%s): the controller has stopped", c.name, src.Name())
	case c.find(src) >= 0:
		return fmt.Errorf("controller %s: Watch(%s): already watched", c.name, src.Name())
	}
	w := &watch{src: src}
	if c.q != nil {
		if err := c.attach(w); err != nil {
			return err
		}
	}
	c.watches = append(c.watches, w)
	return nil
}

// Unwatch removes src, a source given to Watch, before or after Start.
// When it returns, src adds no more requests to the queue (requests it
// added earlier are still reconciled) and is detached from what feeds it:
// an informer source's handler is removed, which releases the informer
// when no other handler uses it (see informer.Factory). Unwatching a
// source that is not watched is an error naming it.
//
// Unwatch takes the source rather than a handle returned by Watch so that
// Watch keeps the signature the builder and every caller use, and because
// the caller holds the source already. A source can be watched again after
// Unwatch; an informer source then uses its factory's current informer
// (a fresh one, listing everything again, if the old one was released).
//
// A source is identified with ==: a source whose type is not comparable
// (a slice, say) can be watched but not unwatched; make it a pointer.
func (c *Controller) Unwatch(src Source) error {
	if src == nil {
		return fmt.Errorf("controller %s: Unwatch(nil)", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.find(src)
	if i < 0 {
		if !reflect.ValueOf(src).Comparable() {
			return fmt.Errorf("controller %s: Unwatch(%s): a source of type %T cannot be told apart from others (not comparable); watch a pointer to it", c.name, src.Name(), src)
		}
		return fmt.Errorf("controller %s: Unwatch(%s): not watched", c.name, src.Name())
	}
	w := c.watches[i]
	c.watches = slices.Delete(c.watches, i, i+1)
	w.stop()
	return nil
}

// find returns the index of src among the watches, or -1. c.mu is held.
func (c *Controller) find(src Source) int {
	if !reflect.ValueOf(src).Comparable() {
		return -1
	}
	return slices.IndexFunc(c.watches, func(w *watch) bool {
		return reflect.TypeOf(w.src) == reflect.TypeOf(src) && w.src == src
	})
}

// attach connects w to the running queue. c.mu is held.
func (c *Controller) attach(w *watch) error {
	w.gate = &gate{q: c.q}
	detach, err := w.src.Attach(c.attachCtx, w.gate)
	if err != nil {
		return fmt.Errorf("controller %s: %w", c.name, err)
	}
	w.detach = detach
	return nil
}

// detachAll stops every watch when the controller stops.
func (c *Controller) detachAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, w := range c.watches {
		w.stop()
	}
}

// stop closes w's gate, then detaches its source. c.mu is held.
func (w *watch) stop() {
	if w.gate != nil {
		w.gate.close()
	}
	if w.detach != nil {
		w.detach()
		w.detach = nil
	}
}

// gate is the queue one source feeds. Closing it drops every later Add, so
// that once Unwatch returns no request from that source arrives, not even
// from a handler call that was in progress.
type gate struct {
	q      handler.PriorityQueue
	mu     sync.RWMutex
	closed bool
}

func (g *gate) Add(req reconcile.Request) { g.AddWithOpts(handler.AddOpts{}, req) }

func (g *gate) AddWithOpts(o handler.AddOpts, req reconcile.Request) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if !g.closed {
		g.q.AddWithOpts(o, req)
	}
}

// tracksEchoes and ownEcho are the controller queue's (see eventQueue).
func (g *gate) tracksEchoes() bool { return tracksEchoes(g.q) }

func (g *gate) ownEcho(req reconcile.Request, e echoEvent) bool {
	return g.q.(ownWrites).ownEcho(req, e)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
