package client

import (
	"context"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// Client reads objects of kind T (such as *appsv1.Deployment) from a shared
// informer cache and writes them to the API server.
type Client[T object.Object] struct {
	inf        *informer.Informer[T]
	rest       rest.Interface
	params     runtime.ParameterCodec
	resource   schema.GroupResource
	namespaced bool
	newObj     func() T
	wait       time.Duration // the factory's sync timeout
	started    func() bool   // whether the factory runs its informers
}

// For returns a Client for T over the factory's shared informer of T in
// namespace: "" for the factory's namespace (all namespaces when it is not
// restricted, see informer.WithNamespace) and for cluster-scoped kinds;
// another namespace than a restricted factory's is an error;
// informer.AllNamespaces asks for a cluster-wide cache explicitly. The
// informer runs with the factory.
func For[T object.Object](f *informer.Factory, namespace string) (*Client[T], error) {
	gvk, err := informer.KindOf[T](f.Scheme())
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	mapping, err := f.RESTMapping(gvk)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	rc, err := f.RESTClientFor(gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	inf, err := informer.For[T](f, namespace, informer.Selectors{})
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	elem := reflect.TypeFor[T]().Elem()
	return &Client[T]{
		inf:        inf,
		rest:       rc,
		params:     runtime.NewParameterCodec(f.Scheme()),
		resource:   mapping.Resource.GroupResource(),
		namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace,
		newObj:     func() T { return reflect.New(elem).Interface().(T) },
		wait:       f.SyncTimeout(),
		started:    f.Started,
	}, nil
}

// Informer returns the shared informer the client reads from, to watch it
// in a controller or add indexes to it.
func (c *Client[T]) Informer() *informer.Informer[T] { return c.inf }

// Get returns the cached object namespace/name (namespace "" for
// cluster-scoped kinds), or a NotFound API error (apierrors.IsNotFound). It
// waits for the cache's first list first (see the package documentation),
// so NotFound always means the object does not exist as of the cache's
// resourceVersion. The object is shared with every other reader: copy it
// before changing it.
func (c *Client[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	var zero T
	if err := c.readable(ctx, namespace); err != nil {
		return zero, fmt.Errorf("get %s %s: %w", c.resource, objectKey(namespace, name), err)
	}
	if obj, ok := c.inf.Cache().Get(namespace, name); ok {
		return obj, nil
	}
	return zero, apierrors.NewNotFound(c.resource, name)
}

// readable returns an error if the cache cannot answer for namespace ("" for
// all namespaces): because it holds another namespace only, or because its
// first list is not complete after waiting for it, at most the factory's
// sync timeout.
func (c *Client[T]) readable(ctx context.Context, namespace string) error {
	if ns := c.inf.Namespace(); ns != "" && namespace != ns {
		return fmt.Errorf("the cache holds namespace %q only (informer %s)", ns, c.inf.Name())
	}
	if c.inf.HasSynced() {
		return nil
	}
	if !c.started() {
		// As controller-runtime's cache does: waiting would only delay
		// the same answer by the whole timeout.
		return fmt.Errorf("informer %s: %w: its factory has not been started (start the manager first)", c.inf.Name(), informer.ErrNotSynced)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.wait, fmt.Errorf("cache sync timeout %s", c.wait))
	defer cancel()
	return c.inf.WaitForSync(ctx)
}

// Create creates obj and returns the object the server stored.
func (c *Client[T]) Create(ctx context.Context, obj T, opts ...metav1.CreateOptions) (T, error) {
	req := c.rest.Post().NamespaceIfScoped(obj.GetNamespace(), c.namespaced).Resource(c.resource.Resource).
		VersionedParams(first(opts), c.params).Body(obj)
	return c.do(ctx, req, "create", obj.GetNamespace(), obj.GetName())
}

// Update replaces obj, failing with 409 Conflict if it changed on the server
// since obj's resourceVersion.
func (c *Client[T]) Update(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, "", opts)
}

// UpdateStatus replaces obj's status subresource, failing with 409 Conflict
// if it changed on the server since obj's resourceVersion.
func (c *Client[T]) UpdateStatus(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, "status", opts)
}

// Patch applies a patch of type pt to namespace/name, or to one of its
// subresources (such as "status").
func (c *Client[T]) Patch(ctx context.Context, namespace, name string, pt types.PatchType, data []byte, subresources ...string) (T, error) {
	req := c.rest.Patch(pt).NamespaceIfScoped(namespace, c.namespaced).Resource(c.resource.Resource).
		Name(name).SubResource(subresources...).Body(data)
	return c.do(ctx, req, "patch", namespace, name)
}

// Delete deletes namespace/name. Deleting an object that is already gone
// returns a NotFound API error.
func (c *Client[T]) Delete(ctx context.Context, namespace, name string, opts ...metav1.DeleteOptions) error {
	err := c.rest.Delete().NamespaceIfScoped(namespace, c.namespaced).Resource(c.resource.Resource).
		Name(name).Body(first(opts)).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", c.resource, objectKey(namespace, name), err)
	}
	return nil
}

func (c *Client[T]) put(ctx context.Context, obj T, sub string, opts []metav1.UpdateOptions) (T, error) {
	req := c.rest.Put().NamespaceIfScoped(obj.GetNamespace(), c.namespaced).Resource(c.resource.Resource).
		Name(obj.GetName()).VersionedParams(first(opts), c.params).Body(obj)
	verb := "update"
	if sub != "" {
		req, verb = req.SubResource(sub), "update "+sub+" of"
	}
	return c.do(ctx, req, verb, obj.GetNamespace(), obj.GetName())
}

// live reads namespace/name from the API server, bypassing the cache.
func (c *Client[T]) live(ctx context.Context, namespace, name string) (T, error) {
	req := c.rest.Get().NamespaceIfScoped(namespace, c.namespaced).Resource(c.resource.Resource).Name(name)
	return c.do(ctx, req, "get", namespace, name)
}

// do sends req and decodes the answer; namespace and name are for errors.
func (c *Client[T]) do(ctx context.Context, req *rest.Request, verb, namespace, name string) (T, error) {
	out := c.newObj()
	if err := req.Do(ctx).Into(out); err != nil {
		var zero T
		return zero, fmt.Errorf("%s %s %s: %w", verb, c.resource, objectKey(namespace, name), err)
	}
	return out, nil
}

func first[O any](opts []O) *O {
	if len(opts) > 0 {
		return &opts[0]
	}
	return new(O)
}

// objectKey is "namespace/name", or "name" for cluster-scoped objects.
func objectKey(namespace, name string) string {
	return object.FormatKey(types.NamespacedName{Namespace: namespace, Name: name})
}
