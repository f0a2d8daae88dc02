package finalizer

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// Funcs are the two functions a Reconciler runs on the object it read,
// both required. The object is shared with the client's cache: copy it
// before changing it.
type Funcs[T object.Object] struct {
	// Apply brings the world in line with an object that is not being
	// deleted and carries the finalizer. Its result and error are the
	// reconcile's.
	Apply func(ctx context.Context, obj T) (reconcile.Result, error)
	// Cleanup releases what Apply made, for an object being deleted. The
	// finalizer is removed when it returns a zero Result and no error; an
	// error retries it with backoff, a RequeueAfter looks again after
	// that long, and in both cases the object stays.
	Cleanup func(ctx context.Context, obj T) (reconcile.Result, error)
}

// Reconciler is a reconcile.Reconciler for objects of kind T that keeps the
// finalizer it is named after on them while they live, runs its Funcs'
// Apply on them, and Cleanup when they are deleted (see the package
// documentation).
type Reconciler[T object.Object] struct {
	client client.Interface[T]
	name   string
	f      Funcs[T]
}

// New returns a Reconciler that reads and writes objects through c and
// manages the finalizer name, a domain-qualified name such as
// "foo.example.com/cleanup" that no other controller uses.
func New[T object.Object](c client.Interface[T], name string, f Funcs[T]) (*Reconciler[T], error) {
	switch errs := validation.IsQualifiedName(name); {
	case c == nil:
		return nil, fmt.Errorf("finalizer %q: no client", name)
	case f.Apply == nil || f.Cleanup == nil:
		return nil, fmt.Errorf("finalizer %q: Funcs needs both Apply and Cleanup", name)
	case len(errs) > 0:
		return nil, fmt.Errorf("finalizer %q: not a valid finalizer name: %s", name, strings.Join(errs, "; "))
	case !strings.Contains(name, "/"):
		return nil, fmt.Errorf("finalizer %q: want a domain-qualified name, such as example.com/%s, that no other controller uses", name, name)
	}
	return &Reconciler[T]{client: c, name: name, f: f}, nil
}

// Name returns the finalizer's name.
func (r *Reconciler[T]) Name() string { return r.name }

// Reconcile reads the object req names and adds the finalizer then runs
// Apply, or runs Cleanup then removes the finalizer.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj, err := r.client.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if obj.GetDeletionTimestamp() == nil && !object.HasFinalizer(obj, r.name) {
		obj, err = r.client.Modify(ctx, req.Namespace, req.Name, func(obj T) error {
			// The API server refuses new finalizers on an object being
			// deleted: one that started meanwhile gets none.
			if obj.GetDeletionTimestamp() == nil {
				object.AddFinalizer(obj, r.name)
			}
			return nil
		})
		if err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(r.wrap("adding it to", req, err))
		}
		if object.HasFinalizer(obj, r.name) {
			logr.FromContextOrDiscard(ctx).V(1).Info("added finalizer", "finalizer", r.name)
		}
	}
	if obj.GetDeletionTimestamp() != nil {
		return r.finalize(ctx, req, obj)
	}
	return r.f.Apply(ctx, obj)
}

// finalize runs Cleanup on an object being deleted that carries the
// finalizer, and removes the finalizer once Cleanup is done.
func (r *Reconciler[T]) finalize(ctx context.Context, req reconcile.Request, obj T) (reconcile.Result, error) {
	if !object.HasFinalizer(obj, r.name) {
		return reconcile.Result{}, nil // cleaned up already, or never applied
	}
	res, err := r.f.Cleanup(ctx, obj)
	switch {
	case err != nil:
		return res, r.wrap("cleanup of", req, err)
	case !res.IsZero():
		return res, nil
	}
	_, err = r.client.Modify(ctx, req.Namespace, req.Name, func(obj T) error {
		object.RemoveFinalizer(obj, r.name)
		return nil
	})
	if err != nil {
		// Gone already: someone else removed the last finalizer.
		return reconcile.Result{}, client.IgnoreNotFound(r.wrap("removing it from", req, err))
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("removed finalizer", "finalizer", r.name)
	return reconcile.Result{}, nil
}

// wrap names the finalizer, what was being done and the object.
func (r *Reconciler[T]) wrap(doing string, req reconcile.Request, err error) error {
	return fmt.Errorf("finalizer %s: %s %s: %w", r.name, doing, req, err)
}

var _ reconcile.Reconciler = (*Reconciler[object.Object])(nil)
