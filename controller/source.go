package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// Source feeds a controller's queue. Attach begins delivering requests to
// q and returns at once, with a function that stops delivery (unlike the
// Start methods of the informer, controller and manager, it does not block). As an informer.Syncer it is
// named, and its HasSynced reports whether it has delivered its initial
// state; the controller waits for that before it starts its workers.
type Source interface {
	informer.Syncer
	Attach(ctx context.Context, q handler.Queue) (detach func(), err error)
}

// Informer returns a Source that passes inf's events through preds to h.
// The informer is shared and is not run by the controller: run it (or let a
// manager run it) alongside. Detaching the source removes its handler,
// which releases a factory's informer that no other handler uses (see
// informer.Factory); attached again (after Controller.Unwatch), the source
// uses the informer the factory hands out then (informer.Informer.Current).
func Informer[T object.Object](inf *informer.Informer[T], h handler.EventHandler[T], preds ...predicate.Predicate[T]) Source {
	return &informerSource[T]{name: inf.Name(), inf: inf, h: handler.Filtered(h, preds...)}
}

type informerSource[T object.Object] struct {
	name string
	h    handler.EventHandler[T]

	mu  sync.Mutex
	inf *informer.Informer[T]
	reg *informer.Registration // set while attached
}

func (s *informerSource[T]) Name() string { return s.name }

func (s *informerSource[T]) HasSynced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reg != nil && s.reg.HasSynced() && s.inf.HasSynced()
}

func (s *informerSource[T]) Attach(ctx context.Context, q handler.Queue) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg != nil {
		return nil, fmt.Errorf("controller: source %s attached twice", s.name)
	}
	// The informer speaks package event's types already: its events go to
	// the handler as they are, with a queue that gives each add the
	// event's default priority and reasons.
	eq := newEventQueues(q)
	h := informer.HandlerFuncs[T]{
		CreateFunc: func(e event.Create[T]) {
			if e.IsInInitialList {
				s.h.Create(ctx, e, &eq.initial)
				return
			}
			s.h.Create(ctx, e, &eq.create)
		},
		UpdateFunc: func(e event.Update[T]) {
			if e.Unchanged() {
				s.h.Update(ctx, e, &eq.resync)
				return
			}
			if eq.echoes != nil {
				// One update at a time: the registration's events come
				// from one goroutine.
				eq.update.echo = echoOf{eq.echoes, e.ObjectNew.GetUID(), e.ObjectNew.GetResourceVersion()}
				defer func() { eq.update.echo = echoOf{} }()
			}
			s.h.Update(ctx, e, &eq.update)
		},
		DeleteFunc: func(e event.Delete[T]) { s.h.Delete(ctx, e, &eq.delete) },
	}
	var hopts []informer.HandlerOption
	if handler.ReadsOnlyMetadata(s.h) {
		// The handler and the queues above read only names and owners.
		hopts = append(hopts, informer.MetadataOnly())
	}
	for {
		inf, err := s.inf.Current()
		if err != nil {
			return nil, fmt.Errorf("controller: watching %s: %w", s.name, err)
		}
		s.inf = inf
		reg, err := inf.AddHandler(h, hopts...)
		if errors.Is(err, informer.ErrReleased) {
			continue // released since Current: ask again
		}
		if err != nil {
			return nil, fmt.Errorf("controller: watching %s: %w", s.name, err)
		}
		s.reg = reg
		return func() { s.detach(reg) }, nil
	}
}

// detach removes reg, if it is still the source's registration.
func (s *informerSource[T]) detach(reg *informer.Registration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg == reg {
		s.reg = nil
		reg.Remove()
	}
}

// eventQueue is the queue a handler is given for one kind of informer
// event. An add that names no reasons gets the event's Watched reason, an
// add that names no priority the event's default, and every add the
// event's qualifier (InitialList, Resync). Handlers that know better
// (handler.EnqueueObject says Primary, EnqueueOwner Owned) name theirs.
type eventQueue struct {
	q        handler.Queue
	why      reconcile.Reasons // for adds that name none
	also     reconcile.Reasons // for every add
	priority *int              // for adds that name none; nil is 0
	echo     echoOf            // the update being delivered, with WithDropOwnEchoes
}

// ownWrites is the controller's queue when it recognizes the echoes of
// its own writes (to drop them with WithDropOwnEchoes, or to queue them at
// the priority of the reconcile that wrote).
type ownWrites interface {
	tracksEchoes() bool
	// ownEcho reports whether it has taken care of e's add of req: dropped
	// it as an echo or added it at the writer's priority, or put it off
	// until req's reconcile in progress has recorded its writes.
	ownEcho(req reconcile.Request, e echoEvent) bool
}

// echoEvent is an add of a request for an update whose new object is uid
// at rv, as it would go to q.
type echoEvent struct {
	uid types.UID
	rv  string
	q   handler.Queue
	o   handler.AddOpts
}

// tracksEchoes reports whether q, a queue a source is given, looks for
// the echoes of its controller's writes.
// The queues between a source and the controller's (per watch, for
// latency) pass the question on.
func tracksEchoes(q any) bool {
	w, ok := q.(ownWrites)
	return ok && w.tracksEchoes()
}

// echoOf is an update event's new object, to tell an echo by.
type echoOf struct {
	w   ownWrites // nil when not checked
	uid types.UID
	rv  string
}

func (e *eventQueue) Add(req reconcile.Request) { e.AddWithOpts(handler.AddOpts{}, req) }

func (e *eventQueue) AddWithOpts(o handler.AddOpts, req reconcile.Request) {
	if o.Reasons == 0 {
		o.Reasons = e.why
	}
	o.Reasons |= e.also
	if o.Priority == nil {
		o.Priority = e.priority
	}
	if e.echo.w != nil && e.echo.w.ownEcho(req, echoEvent{e.echo.uid, e.echo.rv, e.q, o}) {
		return // the echo of the write this request's reconcile made, or put off
	}
	handler.AddWithOpts(e.q, o, req)
}

// eventQueues are a source's queues, one per kind of event, built once
// at Attach so that delivering an event allocates none.
type eventQueues struct {
	create, initial, update, resync, delete eventQueue
	echoes                                  ownWrites // nil unless echoes are tracked
}

func newEventQueues(q handler.Queue) *eventQueues {
	low := workqueue.LowPriority
	var echoes ownWrites
	if tracksEchoes(q) {
		echoes = q.(ownWrites)
	}
	return &eventQueues{
		echoes:  echoes,
		create:  eventQueue{q: q, why: reconcile.WatchedCreated},
		initial: eventQueue{q: q, why: reconcile.WatchedCreated, also: reconcile.InitialList, priority: &low},
		update:  eventQueue{q: q, why: reconcile.WatchedUpdated},
		resync:  eventQueue{q: q, why: reconcile.WatchedUpdated, also: reconcile.Resync, priority: &low},
		delete:  eventQueue{q: q, why: reconcile.WatchedDeleted},
	}
}
