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
	return c.modify(ctx, namespace, name, mutate, c.Update, c.Get)
}

// ModifyStatus is Modify for the status subresource: the write is an
// UpdateStatus, so changes mutate makes outside the status are not saved.
func (c *Client[T]) ModifyStatus(ctx context.Context, namespace, name string, mutate func(T) error) (T, error) {
	return c.modify(ctx, namespace, name, mutate, c.UpdateStatus, c.Get)
}

// modify is the read-mutate-write loop of Modify: the first read with
// read (the cache's Get: free, and usually current), the reads after a
// conflict, or after the first says NotFound, from the API server.
func (c *Client[T]) modify(ctx context.Context, namespace, name string, mutate func(T) error,
	write func(context.Context, T, ...metav1.UpdateOptions) (T, error), read func(context.Context, string, string) (T, error)) (T, error) {
	var zero T
	delay := 10 * time.Millisecond
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
		if err := backOff(ctx, &delay, err); err != nil {
			return zero, fmt.Errorf("modify %s %s: %w", c.resource, objectKey(namespace, name), err)
		}
	}
}

// backOff waits about delay, with jitter so that racing writers spread
// out, and doubles delay up to a second; it returns the context's cause
// joined with the conflict err if ctx ends first.
func backOff(ctx context.Context, delay *time.Duration, err error) error {
	t := time.NewTimer(*delay/2 + rand.N(*delay))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return errors.Join(context.Cause(ctx), err)
	case <-t.C:
	}
	*delay = min(2**delay, time.Second)
	return nil
}
