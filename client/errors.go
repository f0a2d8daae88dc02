package client

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

// ApplyConflictError is the error of an Apply or ApplyStatus that would
// change fields other field managers own: each of its Conflicts names a
// field and the manager that set it. Apply again with ForceOwnership to
// take the fields over, or stop applying them.
//
// It unwraps to the API server's 409 Conflict, so apierrors.IsConflict is
// true for it; errors.As finds it through any wrapping:
//
//	var conflict *client.ApplyConflictError
//	if errors.As(err, &conflict) {
//		for _, f := range conflict.Conflicts {
//			log.Info("field owned by another manager", "field", f.Field, "manager", f.Manager)
//		}
//	}
type ApplyConflictError struct {
	Resource    schema.GroupResource // the kind's resource, such as "deployments.apps"
	Key         string               // the object's key, "namespace/name" or "name"
	Subresource string               // "status" for ApplyStatus, "" for Apply
	Manager     string               // the field manager that applied
	Conflicts   []FieldConflict      // in the API server's order
	err         error                // the API server's error
}

// FieldConflict is one field of an ApplyConflictError.
type FieldConflict struct {
	Manager string // the field manager that owns the field
	Field   string // the field's path as the API server prints it, such as .spec.replicas
}

func (e *ApplyConflictError) Error() string {
	verb := "apply"
	if e.Subresource != "" {
		verb += " " + e.Subresource + " of"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s as field manager %q: ", verb, e.Resource, e.Key, e.Manager)
	// One clause per manager, its fields in the server's order.
	var managers []string
	fields := map[string][]string{}
	for _, c := range e.Conflicts {
		if _, ok := fields[c.Manager]; !ok {
			managers = append(managers, c.Manager)
		}
		fields[c.Manager] = append(fields[c.Manager], c.Field)
	}
	for i, m := range managers {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "conflict with field manager %q on %s", m, strings.Join(fields[m], ", "))
	}
	b.WriteString(" (apply with ForceOwnership to take them over)")
	return b.String()
}

// Unwrap returns the API server's 409 Conflict error.
func (e *ApplyConflictError) Unwrap() error { return e.err }

// fieldConflicts returns the field manager conflicts err reports: the
// causes of type FieldManagerConflict of a 409 Conflict, whose messages
// read `conflict with "manager"`, optionally followed by the manager's
// subresource, API version and time.
func fieldConflicts(err error) []FieldConflict {
	if !apierrors.IsConflict(err) {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []FieldConflict
	for _, cause := range status.Status().Details.Causes {
		if cause.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		manager := strings.TrimPrefix(cause.Message, "conflict with ")
		if q, err := strconv.QuotedPrefix(manager); err == nil {
			manager, _ = strconv.Unquote(q)
		}
		out = append(out, FieldConflict{Manager: manager, Field: cause.Field})
	}
	return out
}
