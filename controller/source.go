package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/predicate"
)

// Source feeds a controller's queue. Start begins delivering requests to q
// and returns a function that stops delivery; HasSynced reports whether the
// source has delivered its initial state.
type Source interface {
	Name() string
	Start(ctx context.Context, q handler.Queue) (stop func(), err error)
	HasSynced() bool
}

// Informer returns a Source that passes inf's events through preds to h.
// The informer is shared and is not run by the controller: run it (or let a
// manager run it) alongside.
func Informer[T informer.Object](inf *informer.Informer[T], h handler.EventHandler[T], preds ...predicate.Predicate[T]) Source {
	return &informerSource[T]{inf: inf, h: handler.WithPredicates(h, preds...)}
}

type informerSource[T informer.Object] struct {
	inf *informer.Informer[T]
	h   handler.EventHandler[T]
	reg *informer.Registration
}

func (s *informerSource[T]) Name() string { return s.inf.Name() }

func (s *informerSource[T]) HasSynced() bool {
	return s.reg != nil && s.reg.HasSynced() && s.inf.HasSynced()
}

func (s *informerSource[T]) Start(ctx context.Context, q handler.Queue) (func(), error) {
	if s.reg != nil {
		return nil, fmt.Errorf("controller: source %s started twice", s.Name())
	}
	reg, err := s.inf.AddHandler(informer.HandlerFuncs[T]{
		AddFunc: func(obj T, initial bool) {
			s.h.Create(ctx, event.Create[T]{Object: obj, IsInInitialList: initial}, q)
		},
		UpdateFunc: func(old, obj T) {
			s.h.Update(ctx, event.Update[T]{ObjectOld: old, ObjectNew: obj}, q)
		},
		DeleteFunc: func(d informer.Deleted[T]) {
			ns, name := splitKey(d.Key)
			s.h.Delete(ctx, event.Delete[T]{
				Key:    types.NamespacedName{Namespace: ns, Name: name},
				Object: d.Object, DeleteStateUnknown: d.FinalStateUnknown,
			}, q)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("controller: watching %s: %w", s.Name(), err)
	}
	s.reg = reg
	return reg.Remove, nil
}

func splitKey(key string) (namespace, name string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}
