package reflector

import (
	"context"

	"github.com/steadyctl/steady/object"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// ListerWatcher lists and watches one kind of object. List returns a list
// object (such as *corev1.PodList) whose ListMeta carries the resourceVersion
// to watch from.
type ListerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// StreamingLister is implemented by ListerWatchers that can tell whether
// they are backed by a real API server, which can stream the initial list as
// watch events (WatchList). Under WatchListAuto the reflector streams only
// from ListerWatchers that say they can, so a fake that does not know about
// streaming — client-go's fake clientsets included — is never asked to.
type StreamingLister interface {
	SupportsWatchList() bool
}

// ListOption narrows what a ListerWatcher built here lists and watches.
type ListOption func(*metav1.ListOptions)

// Matching restricts to the objects sel selects (its label and field
// selectors, e.g. "app=web" and "spec.nodeName=node-1").
func Matching(sel object.Selector) ListOption {
	return func(o *metav1.ListOptions) { o.LabelSelector, o.FieldSelector = sel.Labels, sel.Fields }
}

// TypedClient is what a client-go typed client for one resource offers, for
// example clientset.CoreV1().Pods(namespace).
type TypedClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// FromClient returns a ListerWatcher over a client-go typed client; pass
// namespace "" to the client for all namespaces. It streams lists only when
// the client is a generated one talking to a server over REST (it has
// GetClient() rest.Interface); fakes and hand-written clients list and watch.
func FromClient[L runtime.Object](c TypedClient[L], opts ...ListOption) ListerWatcher {
	_, viaREST := c.(interface{ GetClient() rest.Interface })
	return newFuncLW(c, viaREST, opts)
}

// FromDynamic returns a ListerWatcher of *unstructured.Unstructured objects
// of any resource, custom resources included, in namespace ("" for all, or
// for cluster-scoped resources). It streams lists only when c is a
// *dynamic.DynamicClient, not a fake.
func FromDynamic(c dynamic.Interface, gvr schema.GroupVersionResource, namespace string, opts ...ListOption) ListerWatcher {
	_, server := c.(*dynamic.DynamicClient)
	return newFuncLW(c.Resource(gvr).Namespace(namespace), server, opts)
}

// FromMetadata returns a ListerWatcher of *metav1.PartialObjectMetadata:
// metadata only, which keeps a cache of large objects small. It streams
// lists only when c is a *metadata.Client, not a fake.
func FromMetadata(c metadata.Interface, gvr schema.GroupVersionResource, namespace string, opts ...ListOption) ListerWatcher {
	_, server := c.(*metadata.Client)
	return newFuncLW(c.Resource(gvr).Namespace(namespace), server, opts)
}

type funcLW struct {
	list   func(context.Context, metav1.ListOptions) (runtime.Object, error)
	watch  func(context.Context, metav1.ListOptions) (watch.Interface, error)
	opts   []ListOption
	stream bool
}

func newFuncLW[L runtime.Object](c TypedClient[L], stream bool, opts []ListOption) *funcLW {
	return &funcLW{
		list:   func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return c.List(ctx, o) },
		watch:  c.Watch,
		opts:   opts,
		stream: stream,
	}
}

func (lw *funcLW) List(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	for _, opt := range lw.opts {
		opt(&o)
	}
	return lw.list(ctx, o)
}

func (lw *funcLW) Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	for _, opt := range lw.opts {
		opt(&o)
	}
	return lw.watch(ctx, o)
}

// SupportsWatchList reports whether the client talks to an API server, which
// either streams or rejects the request (and the reflector falls back).
func (lw *funcLW) SupportsWatchList() bool { return lw.stream }
