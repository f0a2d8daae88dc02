package client

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadyctl/steady/informer"
)

// ListOption narrows a List.
type ListOption func(*listOptions)

type listOptions struct {
	namespace    string
	selector     labels.Selector
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

// MatchingLabels lists only objects whose labels sel matches.
func MatchingLabels(sel labels.Selector) ListOption {
	return func(o *listOptions) { o.selector = sel }
}

// MatchingIndex lists only objects the informer's index name maps to value
// (see informer.Informer.AddIndex): the cached counterpart of a field
// selector.
func MatchingIndex(name, value string) ListOption {
	return func(o *listOptions) { o.index, o.value = name, value }
}

// List returns the cached objects the options select, in no particular
// order, after waiting for the cache's first list (as Get does). The
// objects are shared: copy one before changing it.
func (c *Client[T]) List(ctx context.Context, opts ...ListOption) ([]T, error) {
	o := listOptionsOf(opts)
	ns := o.namespace
	if ns == "" {
		ns = c.inf.Namespace() // every namespace the cache holds
	}
	if err := c.readable(ctx, ns); err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, err)
	}
	cache := c.inf.Cache()
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
	kept := objs[:0]
	for _, obj := range objs {
		if o.index != "" && o.namespace != "" && obj.GetNamespace() != o.namespace {
			continue
		}
		if o.selector != nil && !o.selector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		kept = append(kept, obj)
	}
	return kept, nil
}
