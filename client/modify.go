package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conflictRetries bounds how often Modify re-reads after a 409 Conflict.
const conflictRetries = 10

// Modify changes the object namespace/name safely under concurrent writers:
// it applies mutate to a copy of the cached object and writes it back
// carrying the resourceVersion it read. If someone else wrote in between
// (the cache lags, or another writer raced), the server answers 409
// Conflict and Modify starts over from a fresh read of the API server,
// after a short jittered backoff, so no writer's change is lost. If mutate
// leaves the object unchanged nothing is written and the object read is
// returned. Otherwise Modify returns the object the server stored.
//
// mutate must be safe to call more than once and should not keep the
// object it is given. Its error is returned as is (wrapped), without a
// write. When the cache does not hold the object (it may not have seen a
// create yet), Modify asks the API server; its NotFound is returned:
// Modify changes existing objects (CreateOrUpdate also creates).
func (c *Client[T]) Modify(ctx context.Context, namespace, name string, mutate func(T) error) (T, error) {
	return c.modify(ctx, namespace, name, mutate, c.Update)
}

// ModifyStatus is Modify for the status subresource: the write is an
// UpdateStatus, so changes mutate makes outside the status are not saved.
func (c *Client[T]) ModifyStatus(ctx context.Context, namespace, name string, mutate func(T) error) (T, error) {
	return c.modify(ctx, namespace, name, mutate, c.UpdateStatus)
}

// Operation says what CreateOrUpdate did.
type Operation string

// The operations of CreateOrUpdate.
const (
	Created   Operation = "created"
	Updated   Operation = "updated"
	Unchanged Operation = "unchanged"
)

// CreateOrUpdate makes the object named by obj's namespace and name match
// what mutate sets: if it does not exist, mutate is applied to obj and obj
// is created; if it does, it is changed as Modify changes it (nothing is
// written when mutate changes nothing). It returns the object as stored and
// what it did. mutate must set the same desired state whether it is given
// obj or the existing object.
func (c *Client[T]) CreateOrUpdate(ctx context.Context, obj T, mutate func(T) error) (T, Operation, error) {
	var zero T
	ns, name := obj.GetNamespace(), obj.GetName()
	_, err := c.Get(ctx, ns, name)
	if apierrors.IsNotFound(err) {
		if err := mutate(obj); err != nil {
			return zero, "", fmt.Errorf("create %s %s: %w", c.resource, objectKey(ns, name), err)
		}
		created, err := c.Create(ctx, obj)
		if !apierrors.IsAlreadyExists(err) {
			if err != nil {
				return zero, "", err
			}
			return created, Created, nil
		}
		// The cache had not seen it yet: update the stored object instead.
	} else if err != nil {
		return zero, "", err
	}
	var changed bool
	out, err := c.modify(ctx, ns, name, mutate, func(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
		changed = true
		return c.Update(ctx, obj, opts...)
	})
	switch {
	case err != nil:
		return zero, "", err
	case changed:
		return out, Updated, nil
	}
	return out, Unchanged, nil
}

// modify is the read-mutate-write loop of Modify: the first read from the
// cache (free, and usually current), the reads after a conflict, or after
// the cache says NotFound, from the API server.
func (c *Client[T]) modify(ctx context.Context, namespace, name string, mutate func(T) error,
	write func(context.Context, T, ...metav1.UpdateOptions) (T, error)) (T, error) {
	var zero T
	delay := 10 * time.Millisecond
	read := c.Get
	for attempt := 1; ; attempt++ {
		current, err := read(ctx, namespace, name)
		if apierrors.IsNotFound(err) && attempt == 1 {
			// The cache may not have seen a create yet: ask the server
			// before saying the object does not exist.
			current, err = c.Live().Get(ctx, namespace, name)
		}
		if err != nil {
			return zero, err
		}
		changed := current.DeepCopyObject().(T)
		if err := mutate(changed); err != nil {
			return zero, fmt.Errorf("modify %s %s: %w", c.resource, objectKey(namespace, name), err)
		}
		if apiequality.Semantic.DeepEqual(current, changed) {
			return current, nil
		}
		written, err := write(ctx, changed)
		if err == nil {
			return written, nil
		}
		if !apierrors.IsConflict(err) || attempt == conflictRetries {
			return zero, fmt.Errorf("modify (attempt %d): %w", attempt, err)
		}
		read = c.Live().Get
		// Back off with jitter so racing writers spread out.
		t := time.NewTimer(delay/2 + rand.N(delay))
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, fmt.Errorf("modify %s %s: %w", c.resource, objectKey(namespace, name), errors.Join(context.Cause(ctx), err))
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}
