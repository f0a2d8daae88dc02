package client

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/object"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Live reads objects of kind T from the API server itself, not the cache:
// for the rare read that must see the latest state (a retry after a
// conflict does this for you). Each call is a request, so do not use it on
// every reconcile of a busy controller. It implements Reader[T]. A kind
// the operator does not want to cache at all is better made uncached
// (informer.KindOptions.Uncached): then the Client's own reads go to the
// API server and no informer is started for it. Live reads are not
// limited to the client's namespaces; the API server's RBAC is.
type Live[T object.Object] struct{ c *Client[T] }

// Live returns the client's reader of the API server.
func (c *Client[T]) Live() Live[T] { return Live[T]{c} }

// Get reads namespace/name from the API server.
func (l Live[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	return l.c.getLive(ctx, namespace, name)
}

// List lists from the API server, narrowed by the options; MatchingIndex
// is an error, as indexes exist only in the cache.
func (l Live[T]) List(ctx context.Context, opts ...ListOption) ([]T, error) {
	return l.c.listLive(ctx, listOptionsOf(opts))
}

func (c *Client[T]) getLive(ctx context.Context, namespace, name string) (T, error) {
	return c.do(ctx, c.at(c.rest.Get(), namespace, name, ""), "get", namespace, name)
}

// metadataListAccept asks the API server for a list of metadata only.
const metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

func (c *Client[T]) listLive(ctx context.Context, o listOptions) ([]T, error) {
	if o.index != "" {
		return nil, fmt.Errorf("list %s from the API server: MatchingIndex(%q) works on the cache only", c.resource, o.index)
	}
	if o.err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, o.err)
	}
	lo := metav1.ListOptions{LabelSelector: o.sel.Labels, FieldSelector: o.sel.Fields}
	list, err := c.newList()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, err)
	}
	req := c.rest.Get().NamespaceIfScoped(o.namespace, c.namespaced && o.namespace != "").Resource(c.resource.Resource).
		VersionedParams(&lo, c.params)
	if c.form == formMetadata {
		req.SetHeader("Accept", metadataListAccept)
	}
	if err := req.Do(ctx).Into(list); err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", c.resource, err)
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		obj, ok := it.(T)
		if !ok {
			return nil, fmt.Errorf("list %s: got %T items", c.resource, it)
		}
		out = append(out, obj)
	}
	return out, nil
}

// listUncached lists a kind the factory does not cache from the API
// server: in one namespace, or in each of the client's.
func (c *Client[T]) listUncached(ctx context.Context, o listOptions) ([]T, error) {
	if o.namespace != "" || c.scope == nil {
		return c.listLive(ctx, o)
	}
	var out []T
	for _, ns := range c.scope {
		o.namespace = ns
		objs, err := c.listLive(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("namespace %q: %w", ns, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}
