package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// Client reads objects of kind T (such as *appsv1.Deployment) from a shared
// informer cache and writes them to the API server. It implements
// Interface[T]. For returns one of typed objects; ForUnstructured and
// ForMetadata of any kind as *unstructured.Unstructured and
// *metav1.PartialObjectMetadata.
type Client[T object.Object] struct {
	inf        atomic.Pointer[informer.Informer[T]] // see current; nil for an uncached kind: reads go live
	rest       rest.Interface
	params     runtime.ParameterCodec
	scheme     *runtime.Scheme
	gvk        schema.GroupVersionKind
	resource   schema.GroupResource
	namespaced bool
	newObj     func() T
	newList    func() (runtime.Object, error) // for live lists
	form       form
	proto      *protoWire      // nil unless typed protobuf
	scope      []string        // the namespaces reads may name; nil for any
	wait       time.Duration   // the factory's sync timeout
	started    <-chan struct{} // closed once the factory runs its informers
}

// For returns a Client for T over the factory's shared informer of T in
// namespace: "" for the namespaces the factory caches T in (all
// namespaces unless restricted, see informer.WithNamespaces and
// informer.WithKind) and for cluster-scoped kinds; a namespace outside a
// restricted factory's is an error; informer.AllNamespaces asks for a
// cluster-wide cache explicitly. The informer runs with the factory; its
// REST client comes from the factory's cluster. For a kind the factory
// does not cache (informer.KindOptions.Uncached) no informer is made: the
// client reads from the API server, in the same namespaces.
func For[T object.Object](f *informer.Factory, namespace string) (*Client[T], error) {
	c := f.Cluster()
	gvk, err := cluster.KindOf[T](c)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	scheme, elem := c.Scheme(), reflect.TypeFor[T]().Elem()
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	return newClient(f, gvk, namespace, access[T]{
		form:    formTyped,
		rest:    c.RESTClientFor,
		params:  c.ParameterCodec(),
		newObj:  func() T { return reflect.New(elem).Interface().(T) },
		newList: func() (runtime.Object, error) { return scheme.New(listGVK) },
		informer: func(namespace string) (*informer.Informer[T], error) {
			return informer.For[T](f, namespace, object.Selector{})
		},
	})
}

// Informer returns the shared informer the client reads from, to watch it
// in a controller or add indexes to it; nil for a kind the factory does
// not cache (informer.KindOptions.Uncached). The client does not keep its
// informer alive: once the factory releases it (its last handler removed,
// see informer.Factory), the client reads the factory's current one, a
// fresh informer that lists everything again.
func (c *Client[T]) Informer() *informer.Informer[T] {
	if inf, err := c.current(); err == nil {
		return inf
	}
	return c.inf.Load()
}

// Get returns the cached object namespace/name (namespace "" for
// cluster-scoped kinds), or a NotFound API error (apierrors.IsNotFound). It
// waits for the cache's first list first (see the package documentation),
// so NotFound always means the object does not exist as of the cache's
// resourceVersion. The object is shared with every other reader: copy it
// before changing it; unless the kind's cache is compact
// (informer.WithCompact), whose reads return an object of the caller's own.
func (c *Client[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	inf, err := c.readable(ctx, namespace)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("get %s %s: %w", c.resource, objectKey(namespace, name), err)
	}
	if inf == nil {
		return c.getLive(ctx, namespace, name)
	}
	return c.get(ctx, inf, namespace, name)
}

// get answers Get from inf's cache, which readable returned.
func (c *Client[T]) get(ctx context.Context, inf *informer.Informer[T], namespace, name string) (T, error) {
	var zero T
	if w, ok := c.ownWrite(ctx, inf, namespace, name); ok {
		if w.absent {
			return zero, apierrors.NewNotFound(c.resource, name)
		}
		return w.obj, nil
	}
	obj, ok := inf.Cache().Get(namespace, name)
	switch {
	case ok:
		return obj, nil
	case inf.Released():
		return c.Get(ctx, namespace, name) // emptied under the read: ask its successor
	}
	return zero, apierrors.NewNotFound(c.resource, name)
}

// readable returns the informer to read, or an error if the client cannot
// answer for namespace: because it is outside the client's namespaces, or
// because its cache's first list is not complete after waiting for it, at
// most the factory's sync timeout. It returns no informer and no error for
// an uncached kind.
func (c *Client[T]) readable(ctx context.Context, namespace string) (*informer.Informer[T], error) {
	if err := c.inScope(namespace); err != nil {
		return nil, err
	}
	return c.synced(ctx)
}

// synced returns the informer to read once its cache holds the first list
// (see readable); an uncached client has none, and nothing to wait for.
func (c *Client[T]) synced(ctx context.Context) (*informer.Informer[T], error) {
	inf, err := c.current()
	if err != nil || inf == nil || inf.HasSynced() {
		return inf, err
	}
	select {
	case <-c.started:
	default:
		// As controller-runtime's cache does: waiting would only delay
		// the same answer by the whole timeout.
		return nil, fmt.Errorf("informer %s: %w: its factory has not been started (start the manager first)", inf.Name(), informer.ErrNotSynced)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.wait, fmt.Errorf("cache sync timeout %s", c.wait))
	defer cancel()
	err = inf.WaitForSync(ctx)
	if errors.Is(err, informer.ErrReleased) {
		return c.synced(ctx) // released while waiting: wait for its successor
	}
	return inf, err
}

// current returns the informer the client reads: the one it was made with
// until the factory releases it, then the factory's current one; nil for
// an uncached kind.
func (c *Client[T]) current() (*informer.Informer[T], error) {
	inf := c.inf.Load()
	if inf == nil || !inf.Released() {
		return inf, nil
	}
	next, err := inf.Current()
	if err != nil {
		return nil, err
	}
	c.inf.CompareAndSwap(inf, next)
	return next, nil
}

// withOptions adds the first of opts, if any, to req's query: a request
// without options skips client-go's reflective encoding of an empty one,
// which adds nothing.
func withOptions[O any, P interface {
	*O
	runtime.Object
}](req *rest.Request, opts []O, codec runtime.ParameterCodec) *rest.Request {
	if len(opts) == 0 {
		return req
	}
	return req.VersionedParams(P(&opts[0]), codec)
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
