package client

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/steadyctl/steady/informer"
)

// IgnoreNotFound returns nil if err says the object does not exist
// (apierrors.IsNotFound, which looks through %w wrapping, as every
// client error has), and err otherwise: a reconciler's
// "deleted: nothing to do" in one line, controller-runtime's
// client.IgnoreNotFound.
//
//	d, err := deployments.Get(ctx, req.Namespace, req.Name)
//	if err != nil {
//		return reconcile.Result{}, client.IgnoreNotFound(err)
//	}
//
// An error wrapping informer.ErrNotSynced is never ignored, whatever it
// also wraps: a cache that could not be filled has not said the object is
// absent, and ignoring that would end a reconcile that must be retried.
func IgnoreNotFound(err error) error {
	if apierrors.IsNotFound(err) && !errors.Is(err, informer.ErrNotSynced) {
		return nil
	}
	return err
}

// IgnoreAlreadyExists returns nil if err says the object exists already
// (apierrors.IsAlreadyExists, through %w wrapping), and err otherwise: for
// a Create that may repeat one made by an earlier reconcile the cache has
// not heard of yet.
func IgnoreAlreadyExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
