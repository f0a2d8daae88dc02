package client

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// form is the shape of the objects a Client reads and writes.
type form int

const (
	formTyped        form = iota // the scheme's Go types (For)
	formUnstructured             // *unstructured.Unstructured (ForUnstructured)
	formMetadata                 // *metav1.PartialObjectMetadata (ForMetadata)
)

// access is how a Client of one form reaches the API server and its cache.
type access[T object.Object] struct {
	form     form
	rest     func(schema.GroupVersion) (rest.Interface, error)
	params   runtime.ParameterCodec
	newObj   func() T
	newList  func() (runtime.Object, error)
	informer func(namespace string) (*informer.Informer[T], error)
}

// ForUnstructured returns a Client of kind gvk's objects as
// *unstructured.Unstructured, for custom resources without Go types and
// for code that handles any kind: the same reads (from the factory's
// shared informer.ForUnstructured cache, namespaces as For resolves them)
// and writes as a typed Client. Writes go through a REST client that
// speaks JSON, as the dynamic client does; an object written without
// apiVersion and kind gets gvk's, one of another kind is an error.
func ForUnstructured(f *informer.Factory, gvk schema.GroupVersionKind, namespace string) (*Client[*unstructured.Unstructured], error) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	return newClient(f, gvk, namespace, access[*unstructured.Unstructured]{
		form:   formUnstructured,
		rest:   f.Cluster().UnstructuredRESTClientFor,
		params: metav1.ParameterCodec,
		newObj: func() *unstructured.Unstructured { return &unstructured.Unstructured{} },
		newList: func() (runtime.Object, error) {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(listGVK)
			return l, nil
		},
		informer: func(namespace string) (*informer.Informer[*unstructured.Unstructured], error) {
			return informer.ForUnstructured(f, gvk, namespace, object.Selector{})
		},
	})
}

// ForMetadata returns a Client of kind gvk's objects' metadata only, as
// *metav1.PartialObjectMetadata: reads from the factory's shared
// informer.ForMetadata cache, a small one for large objects whose
// contents the controller does not read, and the writes the API server's
// metadata API serves: Patch, PatchStatus, Apply, ApplyStatus, Delete and
// DeleteAllOf (a patch of labels, annotations, finalizers or owner
// references is the usual one). Create, Update, UpdateStatus, Modify, ModifyStatus and
// CreateOrUpdate would write the object without its contents; they are
// errors naming the kind.
func ForMetadata(f *informer.Factory, gvk schema.GroupVersionKind, namespace string) (*Client[*metav1.PartialObjectMetadata], error) {
	return newClient(f, gvk, namespace, access[*metav1.PartialObjectMetadata]{
		form:    formMetadata,
		rest:    f.Cluster().MetadataRESTClientFor,
		params:  metav1.ParameterCodec,
		newObj:  func() *metav1.PartialObjectMetadata { return &metav1.PartialObjectMetadata{} },
		newList: func() (runtime.Object, error) { return &metav1.PartialObjectMetadataList{}, nil },
		informer: func(namespace string) (*informer.Informer[*metav1.PartialObjectMetadata], error) {
			return informer.ForMetadata(f, gvk, namespace, object.Selector{})
		},
	})
}

// newClient returns a Client of kind gvk in namespace (see For), over the
// factory's shared informer unless the factory does not cache the kind.
func newClient[T object.Object](f *informer.Factory, gvk schema.GroupVersionKind, namespace string, a access[T]) (*Client[T], error) {
	c := f.Cluster()
	mapping, err := c.RESTMapping(gvk)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	rc, err := a.rest(gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	cl := &Client[T]{
		rest:       rc,
		params:     a.params,
		scheme:     c.Scheme(),
		gvk:        gvk,
		resource:   mapping.Resource.GroupResource(),
		namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace,
		newObj:     a.newObj,
		newList:    a.newList,
		form:       a.form,
		wait:       f.CacheSyncTimeout(),
		started:    f.Started(),
	}
	if a.form == formTyped {
		cl.proto = newProtoWire[T](gvk, rc, c.FastPath(cluster.FastProtobuf) && c.ProtobufFor(gvk.GroupVersion()))
	}
	if f.Kind(gvk.GroupKind()).Uncached {
		if cl.scope, err = f.NamespacesFor(gvk, namespace); err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		return cl, nil
	}
	inf, err := a.informer(namespace)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	cl.inf.Store(inf)
	cl.scope = inf.Namespaces() // a successor after a release has the same
	return cl, nil
}

// inScope returns an error if namespace is outside the client's
// namespaces.
func (c *Client[T]) inScope(namespace string) error {
	if c.scope == nil || slices.Contains(c.scope, namespace) {
		return nil
	}
	inf := c.inf.Load()
	if inf == nil {
		return fmt.Errorf("namespace %q is outside the client's namespaces %s (%s is not cached: reads go to the API server)",
			namespace, quoted(c.scope), c.gvk.Kind)
	}
	return fmt.Errorf("namespace %q is not cached: the cache holds namespaces %s only (informer %s)",
		namespace, quoted(c.scope), inf.Name())
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// writable returns an error if the client cannot write obj whole with
// verb: a metadata-only client never can. An unstructured object without
// apiVersion and kind gets the client's.
func (c *Client[T]) writable(verb string, obj T) error {
	switch c.form {
	case formMetadata:
		return fmt.Errorf("%s %s %s: a metadata-only client (ForMetadata) of %s cannot %[1]s: "+
			"the metadata API serves get, list, watch, patch and delete; use Patch, or a client from For or ForUnstructured",
			verb, c.resource, objectKey(obj.GetNamespace(), obj.GetName()), c.gvk.Kind)
	case formUnstructured:
		kind := obj.GetObjectKind()
		switch gvk := kind.GroupVersionKind(); {
		case gvk.Empty():
			kind.SetGroupVersionKind(c.gvk)
		case gvk != c.gvk:
			return fmt.Errorf("%s %s %s: the object is a %s, the client's kind is %s",
				verb, c.resource, objectKey(obj.GetNamespace(), obj.GetName()), gvk, c.gvk)
		}
	}
	return nil
}
