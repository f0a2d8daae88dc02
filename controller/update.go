package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Updater is the part of a typed client Update needs, e.g.
// clientset.AppsV1().Deployments(namespace).
type Updater[T runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// StatusUpdater is the part of a typed client UpdateStatus needs.
type StatusUpdater[T runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// conflictRetries bounds how often Update re-reads after a 409 Conflict.
const conflictRetries = 10

// Update changes the named object safely under concurrent writers: it reads
// the object from the API server, applies mutate to it and writes it back
// carrying the resourceVersion it read. If someone else wrote in between,
// the server answers 409 Conflict and Update starts over from a fresh read
// (with a short, jittered backoff), so no writer's change is lost. If mutate
// leaves the object unchanged nothing is written. mutate must be safe to call
// more than once and should not keep the object it is given. The error of a
// failed mutate, or of the last attempt, is returned.
func Update[T runtime.Object](ctx context.Context, c Updater[T], name string, mutate func(T) error) (T, error) {
	return retryOnConflict(ctx, name, c.Get, mutate, c.Update)
}

// UpdateStatus is Update for the status subresource.
func UpdateStatus[T runtime.Object](ctx context.Context, c StatusUpdater[T], name string, mutate func(T) error) (T, error) {
	return retryOnConflict(ctx, name, c.Get, mutate, c.UpdateStatus)
}

func retryOnConflict[T runtime.Object](ctx context.Context, name string,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	mutate func(T) error,
	write func(context.Context, T, metav1.UpdateOptions) (T, error),
) (T, error) {
	var zero T
	delay := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		current, err := get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return zero, fmt.Errorf("update %s: reading: %w", name, err)
		}
		changed := current.DeepCopyObject().(T)
		if err := mutate(changed); err != nil {
			return zero, fmt.Errorf("update %s: %w", name, err)
		}
		if apiequality.Semantic.DeepEqual(current, changed) {
			return current, nil
		}
		written, err := write(ctx, changed, metav1.UpdateOptions{})
		if err == nil {
			return written, nil
		}
		if !apierrors.IsConflict(err) || attempt == conflictRetries {
			return zero, fmt.Errorf("update %s (attempt %d): %w", name, attempt, err)
		}
		// Back off with jitter so racing writers spread out.
		wait := delay/2 + rand.N(delay)
		select {
		case <-ctx.Done():
			return zero, fmt.Errorf("update %s: %w", name, ctx.Err())
		case <-time.After(wait):
		}
		delay = min(2*delay, time.Second)
	}
}
