package client

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// ListOption narrows a List.
type ListOption func(*listOptions)

type listOptions struct {
	namespace    string
	sel          object.Selector
	labels       labels.Selector // parsed sel.Labels, nil for all
	fields       fields.Selector // parsed sel.Fields, nil for all
	err          error           // from parsing sel
	index, value string
}

func listOptionsOf(opts []ListOption) listOptions {
	var o listOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// InNamespace lists only objects in namespace.
func InNamespace(namespace string) ListOption {
	return func(o *listOptions) { o.namespace = namespace }
}

// Matching lists only objects that sel selects. From the cache, the label
// selector may be anything; the field selector may test metadata.name and
// metadata.namespace only, since a cache cannot evaluate other fields of
// every kind: use MatchingIndex for those, or Live().List, which passes
// both to the API server. A selector the API server would refuse is an
// error of List naming it.
func Matching(sel object.Selector) ListOption {
	l, f, err := sel.Parse()
	if err == nil && l.Empty() {
		l = nil
	}
	if err == nil && f.Empty() {
		f = nil
	}
	return func(o *listOptions) { o.sel, o.labels, o.fields, o.err = sel, l, f, err }
}

// cacheFields are the fields a cached object of any kind can be matched on.
var cacheFields = map[string]bool{"metadata.name": true, "metadata.namespace": true}

// MatchingIndex lists only objects the informer's index name maps to value
// (see informer.Informer.AddIndex): the cached counterpart of a field
// selector. It combines with the other options: with InNamespace(ns) List
// returns only the indexed objects of namespace ns, whatever namespaces
// the index itself spans, and with Matching only those sel also selects.
func MatchingIndex(name, value string) ListOption {
	return func(o *listOptions) { o.index, o.value = name, value }
}

// List returns the cached objects the options select, in no particular
// order, after waiting for the cache's first list (as Get does). The
// objects are shared: copy one before changing it (a compact cache's are
// the caller's own; see informer.WithCompact). Without InNamespace it
// lists every namespace the client covers; InNamespace outside them is an
// error. For a kind the factory does not cache, List asks the API server
// (as Live().List does), once per namespace of a client of several.
func (c *Client[T]) List(ctx context.Context, opts ...ListOption) ([]T, error) {
	o := listOptionsOf(opts)
	if o.namespace != "" {
		if err := c.inScope(o.namespace); err != nil {
			return nil, fmt.Errorf("list %s: %w", c.resource, err)
		}
	}
	inf, err := c.synced(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("list %s: %w", c.resource, err)
	case inf == nil:
		return c.listUncached(ctx, o)
	}
	return c.list(ctx, inf, o, opts)
}

// list answers List from inf's cache, which synced returned.
func (c *Client[T]) list(ctx context.Context, inf *informer.Informer[T], o listOptions, opts []ListOption) ([]T, error) {
	if o.err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, o.err)
	}
	if o.fields != nil {
		for _, r := range o.fields.Requirements() {
			if !cacheFields[r.Field] {
				return nil, fmt.Errorf("list %s: field selector %q: the cache matches metadata.name and metadata.namespace only (use MatchingIndex, or Live().List)", c.resource, o.sel.Fields)
			}
		}
	}
	cache := inf.Cache()
	var objs []T
	switch {
	case o.index != "":
		var err error
		if objs, err = cache.ByIndex(o.index, o.value); err != nil {
			return nil, fmt.Errorf("list %s: %w", c.resource, err)
		}
	case o.namespace != "":
		objs, _ = cache.ByIndex(informer.NamespaceIndex, o.namespace)
	default:
		objs = cache.List()
	}
	if inf.Released() {
		return c.List(ctx, opts...) // emptied under the read: ask its successor
	}
	kept := objs[:0]
	for _, obj := range objs {
		if o.selects(obj) {
			kept = append(kept, obj)
		}
	}
	if writes := c.ownWrites(ctx, inf); writes != nil {
		kept = c.overlay(inf, kept, o, writes)
	}
	return kept, nil
}

// selects reports whether obj, found in the cache by namespace or index,
// is in the namespace (an index spans them), and matches the selectors o
// names.
func (o *listOptions) selects(obj object.Object) bool {
	switch {
	case o.namespace != "" && obj.GetNamespace() != o.namespace:
		return false
	case o.labels != nil && !o.labels.Matches(labels.Set(obj.GetLabels())):
		return false
	case o.fields != nil && !o.fields.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}):
		return false
	}
	return true
}
