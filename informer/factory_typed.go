package informer

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/reflector"
)

type watchInterface = watch.Interface

// typedLW lists and watches one resource into the scheme's typed objects,
// the way client-go's generated clients do, for any kind in the scheme.
type typedLW struct {
	client    rest.Interface
	params    runtime.ParameterCodec
	newList   func() (runtime.Object, error)
	resource  string
	namespace string
	wire      *wireForm // decodes protobuf answers itself; nil for client-go's decoding
}

// typedLW returns the ListerWatcher of gvk's objects, which newObject makes
// (nil where T is not a built-in kind's Go type).
func (f *Factory) typedLW(gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, namespace string, newObject func() protowatch.Object) (reflector.ListerWatcher, error) {
	client, err := f.c.CacheClientFor(gvk.GroupVersion(), !f.o.keepManagedFields)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	scheme := f.c.Scheme()
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	if !scheme.Recognizes(listGVK) {
		return nil, fmt.Errorf("informer factory: the scheme has %s but not %s", gvk, listGVK)
	}
	lw := &typedLW{
		client:    client,
		params:    f.c.ParameterCodec(),
		newList:   func() (runtime.Object, error) { return scheme.New(listGVK) },
		resource:  gvr.Resource,
		namespace: namespace,
	}
	if newObject != nil && f.c.FastPath(cluster.FastProtobuf) && f.c.ProtobufFor(gvk.GroupVersion()) {
		lw.wire = newWireForm(gvk.Kind, newObject, lw.newList, !f.o.keepManagedFields)
	}
	return lw, nil
}

func (l *typedLW) request(opts *metav1.ListOptions) *rest.Request {
	return l.client.Get().NamespaceIfScoped(l.namespace, l.namespace != "").Resource(l.resource).
		VersionedParams(opts, l.params)
}

func (l *typedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := l.newList()
	if err != nil {
		return nil, err
	}
	res := l.request(&opts).Do(ctx)
	if l.wire != nil {
		if ok, err := l.wire.list(res, list); ok {
			return list, err
		}
	}
	return list, res.Into(list)
}

func (l *typedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	if l.wire != nil {
		list := opts.SendInitialEvents != nil && *opts.SendInitialEvents
		if w, ok, err := l.wire.watch(ctx, l.request(&opts), list); ok {
			return w, err
		}
	}
	return l.request(&opts).Watch(ctx)
}

// SupportsWatchList reports true: a real API server streams or refuses.
func (l *typedLW) SupportsWatchList() bool { return true }
