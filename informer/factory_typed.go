package informer

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/reflector"
)

type watchInterface = watch.Interface

func serializerFor(scheme *runtime.Scheme) runtime.NegotiatedSerializer {
	return serializer.NewCodecFactory(scheme).WithoutConversion()
}

// typedLW lists and watches one resource into the scheme's typed objects,
// the way client-go's generated clients do, for any kind in the scheme.
type typedLW struct {
	client    rest.Interface
	params    runtime.ParameterCodec
	newList   func() (runtime.Object, error)
	resource  string
	namespace string
}

// RESTClientFor returns a REST client for the API group version gv that
// encodes and decodes the scheme's typed objects, as a generated clientset
// does.
func (f *Factory) RESTClientFor(gv schema.GroupVersion) (rest.Interface, error) {
	cfg := rest.CopyConfig(f.cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = f.codecs
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", gv, err)
	}
	return client, nil
}

func (f *Factory) typedLW(gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error) {
	client, err := f.RESTClientFor(gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	if !f.scheme.Recognizes(listGVK) {
		return nil, fmt.Errorf("informer factory: the scheme has %s but not %s", gvk, listGVK)
	}
	return &typedLW{
		client:    client,
		params:    runtime.NewParameterCodec(f.scheme),
		newList:   func() (runtime.Object, error) { return f.scheme.New(listGVK) },
		resource:  gvr.Resource,
		namespace: namespace,
	}, nil
}

func (l *typedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := l.newList()
	if err != nil {
		return nil, err
	}
	err = l.client.Get().NamespaceIfScoped(l.namespace, l.namespace != "").Resource(l.resource).
		VersionedParams(&opts, l.params).Do(ctx).Into(list)
	return list, err
}

func (l *typedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return l.client.Get().NamespaceIfScoped(l.namespace, l.namespace != "").Resource(l.resource).
		VersionedParams(&opts, l.params).Watch(ctx)
}

// SupportsWatchList reports true: a real API server streams or refuses.
func (l *typedLW) SupportsWatchList() bool { return true }
