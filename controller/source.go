package controller

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
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
// manager run it) alongside.
func Informer[T object.Object](inf *informer.Informer[T], h handler.EventHandler[T], preds ...predicate.Predicate[T]) Source {
	return &informerSource[T]{inf: inf, h: handler.WithPredicates(h, preds...)}
}

type informerSource[T object.Object] struct {
	inf *informer.Informer[T]
	h   handler.EventHandler[T]
	reg *informer.Registration
}

func (s *informerSource[T]) Name() string { return s.inf.Name() }

func (s *informerSource[T]) HasSynced() bool {
	return s.reg != nil && s.reg.HasSynced() && s.inf.HasSynced()
}

func (s *informerSource[T]) Attach(ctx context.Context, q handler.Queue) (func(), error) {
	if s.reg != nil {
		return nil, fmt.Errorf("controller: source %s attached twice", s.Name())
	}
	// The informer speaks package event's types already: its events go to
	// the handler as they are.
	reg, err := s.inf.AddHandler(informer.HandlerFuncs[T]{
		CreateFunc: func(e event.Create[T]) { s.h.Create(ctx, e, q) },
		UpdateFunc: func(e event.Update[T]) { s.h.Update(ctx, e, q) },
		DeleteFunc: func(e event.Delete[T]) { s.h.Delete(ctx, e, q) },
	})
	if err != nil {
		return nil, fmt.Errorf("controller: watching %s: %w", s.Name(), err)
	}
	s.reg = reg
	return reg.Remove, nil
}
