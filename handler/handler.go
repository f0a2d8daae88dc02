package handler

import (
	"context"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// Queue is where handlers put requests: a controller's work queue.
type Queue interface {
	Add(req reconcile.Request)
}

// EventHandler turns events about objects of type T into reconcile requests.
type EventHandler[T object.Object] interface {
	Create(ctx context.Context, e event.Create[T], q Queue)
	Update(ctx context.Context, e event.Update[T], q Queue)
	Delete(ctx context.Context, e event.Delete[T], q Queue)
	Generic(ctx context.Context, e event.Generic[T], q Queue)
}

// Funcs adapts functions to EventHandler; nil functions ignore their events.
type Funcs[T object.Object] struct {
	CreateFunc  func(context.Context, event.Create[T], Queue)
	UpdateFunc  func(context.Context, event.Update[T], Queue)
	DeleteFunc  func(context.Context, event.Delete[T], Queue)
	GenericFunc func(context.Context, event.Generic[T], Queue)
}

// Create calls CreateFunc if set.
func (f Funcs[T]) Create(ctx context.Context, e event.Create[T], q Queue) {
	if f.CreateFunc != nil {
		f.CreateFunc(ctx, e, q)
	}
}

// Update calls UpdateFunc if set.
func (f Funcs[T]) Update(ctx context.Context, e event.Update[T], q Queue) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(ctx, e, q)
	}
}

// Delete calls DeleteFunc if set.
func (f Funcs[T]) Delete(ctx context.Context, e event.Delete[T], q Queue) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(ctx, e, q)
	}
}

// Generic calls GenericFunc if set.
func (f Funcs[T]) Generic(ctx context.Context, e event.Generic[T], q Queue) {
	if f.GenericFunc != nil {
		f.GenericFunc(ctx, e, q)
	}
}

// Filtered returns h behind preds: an event reaches h only if every
// predicate lets it through.
func Filtered[T object.Object](h EventHandler[T], preds ...predicate.Predicate[T]) EventHandler[T] {
	if len(preds) == 0 {
		return h
	}
	p := predicate.And(preds...)
	f := Funcs[T]{
		CreateFunc: func(ctx context.Context, e event.Create[T], q Queue) {
			if p.Create(e) {
				h.Create(ctx, e, q)
			}
		},
		UpdateFunc: func(ctx context.Context, e event.Update[T], q Queue) {
			if p.Update(e) {
				h.Update(ctx, e, q)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.Delete[T], q Queue) {
			if p.Delete(e) {
				h.Delete(ctx, e, q)
			}
		},
		GenericFunc: func(ctx context.Context, e event.Generic[T], q Queue) {
			if p.Generic(e) {
				h.Generic(ctx, e, q)
			}
		},
	}
	if predicate.ReadsOnlyMetadata(p) {
		return metadataIf(f, h)
	}
	return f
}
