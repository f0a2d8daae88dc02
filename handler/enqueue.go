package handler

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// EnqueueObject requests a reconcile of the object the event is about: the
// usual handler for a controller's primary kind. A deletion is enqueued by
// its key even when the last state is unknown.
func EnqueueObject[T object.Object]() EventHandler[T] {
	return metadata(Funcs[T]{
		CreateFunc: func(_ context.Context, e event.Create[T], q Queue) {
			enqueueObject(e.Object, q, reconcile.PrimaryCreated)
		},
		UpdateFunc: func(_ context.Context, e event.Update[T], q Queue) {
			enqueueObject(e.ObjectNew, q, reconcile.PrimaryUpdated)
			if !event.IsNil(e.ObjectOld) && !event.IsNil(e.ObjectNew) &&
				(e.ObjectOld.GetName() != e.ObjectNew.GetName() || e.ObjectOld.GetNamespace() != e.ObjectNew.GetNamespace()) {
				enqueueObject(e.ObjectOld, q, reconcile.PrimaryUpdated)
			}
		},
		DeleteFunc: func(_ context.Context, e event.Delete[T], q Queue) {
			if e.Key.Name != "" {
				AddWithOpts(q, AddOpts{Reasons: reconcile.PrimaryDeleted}, reconcile.Request{NamespacedName: e.Key})
				return
			}
			enqueueObject(e.Object, q, reconcile.PrimaryDeleted)
		},
		GenericFunc: func(_ context.Context, e event.Generic[T], q Queue) {
			enqueueObject(e.Object, q, reconcile.External)
		},
	})
}

func enqueueObject(obj metav1.Object, q Queue, why reconcile.Reasons) {
	if event.IsNil(obj) {
		return
	}
	AddWithOpts(q, AddOpts{Reasons: why},
		reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}})
}

// OwnerOption configures EnqueueOwner.
type OwnerOption func(*ownerOptions)

type ownerOptions struct {
	onlyController bool
	clusterScoped  bool
}

// OnlyController follows only the owner reference marked controller: true.
func OnlyController() OwnerOption { return func(o *ownerOptions) { o.onlyController = true } }

// OwnerIsClusterScoped says the owner kind is cluster-scoped, so requests
// carry no namespace. By default an owner is in the object's namespace
// (owner references cannot cross namespaces).
func OwnerIsClusterScoped() OwnerOption { return func(o *ownerOptions) { o.clusterScoped = true } }

// EnqueueOwner requests a reconcile of the objects that own the event's
// object, through its owner references whose group and kind match owner
// (the version is ignored: an owner reference written as apps/v1 and one
// written as apps/v1beta1 name the same owner). For updates, owners of both
// the old and new object are enqueued, so an owner that lost a child hears
// of it too.
func EnqueueOwner[T object.Object](owner schema.GroupKind, opts ...OwnerOption) EventHandler[T] {
	var o ownerOptions
	for _, opt := range opts {
		opt(&o)
	}
	add := func(obj T, q Queue, why reconcile.Reasons) {
		if event.IsNil(obj) {
			return
		}
		for _, ref := range obj.GetOwnerReferences() {
			if !o.matches(ref, owner) {
				continue
			}
			ns := obj.GetNamespace()
			if o.clusterScoped {
				ns = ""
			}
			AddWithOpts(q, AddOpts{Reasons: why}, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: ref.Name}})
		}
	}
	return metadata(Funcs[T]{
		CreateFunc: func(_ context.Context, e event.Create[T], q Queue) { add(e.Object, q, reconcile.OwnedCreated) },
		UpdateFunc: func(_ context.Context, e event.Update[T], q Queue) {
			add(e.ObjectOld, q, reconcile.OwnedUpdated)
			add(e.ObjectNew, q, reconcile.OwnedUpdated)
		},
		DeleteFunc:  func(_ context.Context, e event.Delete[T], q Queue) { add(e.Object, q, reconcile.OwnedDeleted) },
		GenericFunc: func(_ context.Context, e event.Generic[T], q Queue) { add(e.Object, q, reconcile.External) },
	})
}

func (o ownerOptions) matches(ref metav1.OwnerReference, owner schema.GroupKind) bool {
	if o.onlyController && (ref.Controller == nil || !*ref.Controller) {
		return false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && ref.Kind == owner.Kind && gv.Group == owner.Group
}

// EnqueueFunc requests a reconcile of whatever fn returns for the event's
// object (for updates, for both the old and the new object). fn is not
// called for a missing object. If fn looks up other objects, read them
// through package client, whose reads wait until that kind's cache is
// filled; a Cache read directly may miss objects not yet listed.
func EnqueueFunc[T object.Object](fn func(ctx context.Context, obj T) []reconcile.Request) EventHandler[T] {
	add := func(ctx context.Context, obj T, q Queue, why reconcile.Reasons) {
		if event.IsNil(obj) {
			return
		}
		for _, req := range fn(ctx, obj) {
			AddWithOpts(q, AddOpts{Reasons: why}, req)
		}
	}
	return Funcs[T]{
		CreateFunc: func(ctx context.Context, e event.Create[T], q Queue) { add(ctx, e.Object, q, reconcile.WatchedCreated) },
		UpdateFunc: func(ctx context.Context, e event.Update[T], q Queue) {
			add(ctx, e.ObjectOld, q, reconcile.WatchedUpdated)
			add(ctx, e.ObjectNew, q, reconcile.WatchedUpdated)
		},
		DeleteFunc:  func(ctx context.Context, e event.Delete[T], q Queue) { add(ctx, e.Object, q, reconcile.WatchedDeleted) },
		GenericFunc: func(ctx context.Context, e event.Generic[T], q Queue) { add(ctx, e.Object, q, reconcile.External) },
	}
}
