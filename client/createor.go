package client

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/steadyctl/steady/object"
)

// Operation says what CreateOrUpdate or CreateOrPatch did.
type Operation string

// The operations of CreateOrUpdate and CreateOrPatch, spelled as
// controller-runtime's OperationResult values.
const (
	// Created: the object did not exist and was created.
	Created Operation = "created"
	// Updated: the object was written (CreateOrPatch: its status was not).
	Updated Operation = "updated"
	// UpdatedStatus: CreateOrPatch wrote the object and its status.
	UpdatedStatus Operation = "updatedStatus"
	// UpdatedStatusOnly: CreateOrPatch wrote the object's status only.
	UpdatedStatusOnly Operation = "updatedStatusOnly"
	// Unchanged: mutate changed nothing, and nothing was written.
	Unchanged Operation = "unchanged"
)

// createRounds bounds how often CreateOrUpdate and CreateOrPatch turn from
// creating to changing and back: only an object that others keep
// creating and deleting meanwhile needs more than two.
const createRounds = 3

// CreateOrUpdate makes the object named by obj's namespace and name match
// what mutate sets: if it does not exist, mutate is applied to obj and obj
// is created; if it does, it is changed as Modify changes it (nothing is
// written when mutate changes nothing). It returns the object as stored and
// what it did. mutate must set the same desired state whether it is given
// obj or the existing object, and must keep the name and namespace: a
// mutate that changes them is an error naming both keys, and nothing is
// written.
//
// Its outcome does not depend on how far the cache is behind. When obj
// carries a resourceVersion (it is the object an earlier write returned,
// fed back in) and the cache holds an older state of it, or none, the
// object is read from the API server instead; a create the cache did not
// know about ends in AlreadyExists and an update of the stored object; an
// update of an object deleted meanwhile ends in a create. Creating clears
// obj's resourceVersion, which the API server refuses on a create.
func (c *Client[T]) CreateOrUpdate(ctx context.Context, obj T, mutate func(T) error) (T, Operation, error) {
	var zero T
	ns, name := obj.GetNamespace(), obj.GetName()
	mutate = keepingKey(ns, name, mutate)
	read := c.startFor(obj)
	for round := 1; ; round++ {
		current, err := read(ctx, ns, name)
		switch {
		case apierrors.IsNotFound(err):
			created, err := c.createMutated(ctx, obj, mutate)
			if err == nil {
				return created, Created, nil
			}
			if !apierrors.IsAlreadyExists(err) || round == createRounds {
				return zero, "", err
			}
			read = c.Live().Get // it exists after all: the cache had not seen it
			continue
		case err != nil:
			return zero, "", err
		}
		var changed bool
		out, err := c.modify(ctx, ns, name, mutate, func(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
			changed = true
			return c.Update(ctx, obj, opts...)
		}, func(context.Context, string, string) (T, error) { return current, nil })
		switch {
		case apierrors.IsNotFound(err) && round < createRounds:
			read = c.Live().Get // deleted meanwhile: create it
			continue
		case err != nil:
			return zero, "", err
		case changed:
			return out, Updated, nil
		}
		return out, Unchanged, nil
	}
}

// startFor returns the first read of CreateOrUpdate and CreateOrPatch for
// obj: the cache, unless obj shows that the cache is behind what its
// caller has seen. obj's resourceVersion, if any, is a state the server
// stored; a cache holding an older state, or not holding the object
// although it has not processed that resourceVersion yet, would send the
// caller down the wrong path (a create refused, or a change judged
// against an old state), so the read goes to the API server.
// resourceVersions are compared as KEP-5504 defines; where they cannot
// be, the cache is trusted.
func (c *Client[T]) startFor(obj T) func(context.Context, string, string) (T, error) {
	rv := obj.GetResourceVersion()
	return func(ctx context.Context, namespace, name string) (T, error) {
		current, err := c.Get(ctx, namespace, name)
		switch {
		case rv == "":
			return current, err
		case apierrors.IsNotFound(err):
			if inf := c.Informer(); inf == nil || inf.HasProcessed(namespace, rv) {
				return current, err // read live, or deleted since rv
			}
			return c.Live().Get(ctx, namespace, name)
		case err != nil:
			return current, err
		}
		if cmp, err := resourceversion.CompareResourceVersion(current.GetResourceVersion(), rv); err == nil && cmp < 0 {
			return c.Live().Get(ctx, namespace, name)
		}
		return current, nil
	}
}

// createMutated applies mutate to obj and creates it. obj may be an object
// the server returned (a create the cache has not seen, or one deleted
// since), so its resourceVersion is cleared: a create carrying one is
// refused with an internal error.
func (c *Client[T]) createMutated(ctx context.Context, obj T, mutate func(T) error) (T, error) {
	if err := mutate(obj); err != nil {
		var zero T
		return zero, fmt.Errorf("create %s %s: %w", c.resource, object.Key(obj), err)
	}
	obj.SetResourceVersion("")
	return c.Create(ctx, obj)
}

// keepingKey wraps mutate with the check that it kept the object's name
// and namespace: a mutate that renames would make CreateOrUpdate create or
// change another object than the one it was asked for.
func keepingKey[T object.Object](namespace, name string, mutate func(T) error) func(T) error {
	return func(obj T) error {
		if err := mutate(obj); err != nil {
			return err
		}
		if obj.GetNamespace() != namespace || obj.GetName() != name {
			return fmt.Errorf("mutate changed the object's key from %q to %q: it must keep the name and namespace", objectKey(namespace, name), object.Key(obj))
		}
		return nil
	}
}
