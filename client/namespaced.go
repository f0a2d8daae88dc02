package client

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/object"
)

// Namespaced is a Client bound to one namespace, shaped like a generated
// clientset's typed client so that controller.Update and
// controller.UpdateStatus can retry conflicting writes with it:
//
//	controller.UpdateStatus(ctx, foos.Namespace(req.Namespace), req.Name, func(f *v1.Foo) error { … })
//
// Its Get reads from the API server, not the cache, so that a retry after a
// conflict starts from the state that caused it.
type Namespaced[T object.Object] struct {
	c         *Client[T]
	namespace string
}

// Namespace returns the client bound to namespace ("" for cluster-scoped
// kinds).
func (c *Client[T]) Namespace(namespace string) Namespaced[T] {
	return Namespaced[T]{c: c, namespace: namespace}
}

// Get reads name from the API server.
func (n Namespaced[T]) Get(ctx context.Context, name string, _ metav1.GetOptions) (T, error) {
	return n.c.live(ctx, n.namespace, name)
}

// Update replaces obj.
func (n Namespaced[T]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return n.c.Update(ctx, obj, opts)
}

// UpdateStatus replaces obj's status.
func (n Namespaced[T]) UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return n.c.UpdateStatus(ctx, obj, opts)
}
