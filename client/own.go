package client

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/writes"
)

// A reconcile's reads show its own writes (see the package documentation,
// "Your own writes"): Get and List put what the reconcile running with the
// context wrote through the same cache over what the cache holds, for each
// write the cache does not show yet. The cache stays the only source once
// it shows a write, so an answer is never older than the cache.

// own is what a reconcile's own write makes of one object in its reads:
// obj as the cache will hold it, or absent (deleted, or outside the
// cache's selectors).
type own[T any] struct {
	obj    T
	absent bool
}

// ownWrite returns what the reconcile running with ctx wrote to
// namespace/name through inf, if inf's cache does not show it yet.
func (c *Client[T]) ownWrite(ctx context.Context, inf *informer.Informer[T], namespace, name string) (own[T], bool) {
	w, ok := writes.Find(ctx, inf, namespace, name)
	if !ok || inf.Shows(w) {
		return own[T]{}, false
	}
	return ownOf(inf, w)
}

// ownWrites returns ownWrite's answer for every object the reconcile
// running with ctx wrote through inf; nil when there is none, the
// common case, at the cost of a context lookup.
func (c *Client[T]) ownWrites(ctx context.Context, inf *informer.Informer[T]) map[types.NamespacedName]own[T] {
	var out map[types.NamespacedName]own[T]
	for _, w := range writes.List(ctx, inf) {
		if inf.Shows(w) {
			continue
		}
		if o, ok := ownOf(inf, w); ok {
			if out == nil {
				out = make(map[types.NamespacedName]own[T])
			}
			out[types.NamespacedName{Namespace: w.Namespace, Name: w.Name}] = o
		}
	}
	return out
}

// ownOf turns w, a write inf's cache does not show, into what reads show;
// false when w's object is not a T (a deletion's answer may be another
// kind), and the cache is read instead.
func ownOf[T object.Object](inf *informer.Informer[T], w writes.Write) (own[T], bool) {
	if w.Deleted {
		return own[T]{absent: true}, true
	}
	obj, ok := w.Object.(T)
	if !ok {
		return own[T]{}, false
	}
	cached, held := inf.AsCached(obj)
	return own[T]{obj: cached, absent: !held}, true
}

// overlay applies a reconcile's own writes to objs, the cache's answer to
// a List with options o: an object written is replaced by what was
// written, or removed; one created is added if o selects it.
func (c *Client[T]) overlay(inf *informer.Informer[T], objs []T, o listOptions, writes map[types.NamespacedName]own[T]) []T {
	objs = slices.DeleteFunc(objs, func(obj T) bool {
		_, written := writes[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}]
		return written
	})
	for _, w := range writes {
		if w.absent || !o.selects(w.obj) {
			continue
		}
		if o.index != "" {
			vals, err := inf.Cache().ValuesOf(o.index, w.obj)
			if err != nil || !slices.Contains(vals, o.value) {
				continue
			}
		}
		objs = append(objs, w.obj)
	}
	return objs
}
