package client

import (
	"context"

	"github.com/steadyctl/steady/object"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Reader reads objects of kind T. Client reads its cache; Live reads the
// API server.
type Reader[T any] interface {
	Get(ctx context.Context, namespace, name string) (T, error)
	List(ctx context.Context, opts ...ListOption) ([]T, error)
}

// Writer writes objects of kind T to the API server. Every write returns
// the object the server stored.
type Writer[T any] interface {
	Create(ctx context.Context, obj T, opts ...metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error)
	UpdateStatus(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error)
	Patch(ctx context.Context, namespace, name string, pt types.PatchType, data []byte, opts ...metav1.PatchOptions) (T, error)
	PatchStatus(ctx context.Context, namespace, name string, pt types.PatchType, data []byte, opts ...metav1.PatchOptions) (T, error)
	Apply(ctx context.Context, cfg runtime.ApplyConfiguration, opts ...ApplyOption) (T, error)
	ApplyStatus(ctx context.Context, cfg runtime.ApplyConfiguration, opts ...ApplyOption) (T, error)
	Delete(ctx context.Context, namespace, name string, opts ...metav1.DeleteOptions) error
	DeleteAllOf(ctx context.Context, namespace string, sel object.Selector, opts ...metav1.DeleteOptions) error
	Modify(ctx context.Context, namespace, name string, mutate func(T) error) (T, error)
	ModifyStatus(ctx context.Context, namespace, name string, mutate func(T) error) (T, error)
	CreateOrUpdate(ctx context.Context, obj T, mutate func(T) error) (T, Operation, error)
	CreateOrPatch(ctx context.Context, obj T, mutate func(T) error) (T, Operation, error)
}

// Interface is what a reconciler needs of a client of kind T: reads from
// the cache and writes to the API server. *Client[T] implements it; take
// an Interface[T] in a reconciler to hand it a fake in a unit test.
type Interface[T any] interface {
	Reader[T]
	Writer[T]
}

var (
	_ Interface[*metav1.PartialObjectMetadata] = (*Client[*metav1.PartialObjectMetadata])(nil)
	_ Reader[*metav1.PartialObjectMetadata]    = Live[*metav1.PartialObjectMetadata]{}
)
