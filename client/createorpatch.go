package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// CreateOrPatch is controller-runtime's controllerutil.CreateOrPatch: it
// makes the object named by obj's namespace and name match what mutate
// sets, writing merge patches of the fields mutate changed rather than
// the whole object, and the status through the status subresource. If the
// object does not exist, mutate is applied to obj, obj is created, and
// the status mutate set is patched onto it (the API server ignores the
// status of a create for kinds with a status subresource; controller-runtime
// leaves it unwritten). If it exists, mutate is applied to a copy, and
// what changed outside the status is one patch, the status another; the
// Operation says which were written: Updated, UpdatedStatus,
// UpdatedStatusOnly, or Unchanged when neither changed.
//
// Unlike controller-runtime's, each patch carries the resourceVersion it
// was computed from, so a patch based on a stale cache fails with 409
// Conflict instead of writing over a change it did not see (a list in a
// merge patch replaces the whole list); CreateOrPatch then reads the API
// server and patches again, as Modify does. The reads, the name checks
// and the create are CreateOrUpdate's. A kind without a status
// subresource that has a status keeps its status in the object and cannot
// be written by the status patch: use CreateOrUpdate for it.
func (c *Client[T]) CreateOrPatch(ctx context.Context, obj T, mutate func(T) error) (T, Operation, error) {
	var zero T
	ns, name := obj.GetNamespace(), obj.GetName()
	mutate = keepingKey(ns, name, mutate)
	read := c.startFor(obj)
	var created, spec, status bool
	delay := 10 * time.Millisecond
	for attempt, rounds := 1, 0; ; attempt++ {
		current, err := read(ctx, ns, name)
		switch {
		case apierrors.IsNotFound(err) && !created && rounds < createRounds:
			rounds++
			current, err = c.createMutated(ctx, obj, mutate)
			if apierrors.IsAlreadyExists(err) && rounds < createRounds {
				read = c.Live().Get // the cache had not seen it
				continue
			}
			if err != nil {
				return zero, "", err
			}
			created = true
		case err != nil:
			return zero, "", err
		}
		out, wroteSpec, wroteStatus, err := c.patchMutated(ctx, current, mutate, created)
		spec, status = spec || wroteSpec, status || wroteStatus
		switch {
		case err == nil:
			return out, operation(created, spec, status), nil
		case apierrors.IsNotFound(err) && !created && rounds < createRounds:
			read = c.Live().Get // deleted meanwhile: create it
			continue
		case !apierrors.IsConflict(err) || attempt == conflictRetries:
			return zero, "", fmt.Errorf("create or patch (attempt %d): %w", attempt, err)
		}
		read = c.Live().Get
		if err := backOff(ctx, &delay, err); err != nil {
			return zero, "", fmt.Errorf("create or patch %s %s: %w", c.resource, objectKey(ns, name), err)
		}
	}
}

// operation names what CreateOrPatch wrote.
func operation(created, spec, status bool) Operation {
	switch {
	case created:
		return Created
	case spec && status:
		return UpdatedStatus
	case spec:
		return Updated
	case status:
		return UpdatedStatusOnly
	}
	return Unchanged
}

// patchMutated applies mutate to a copy of current and writes what it
// changed as merge patches locked to current's resourceVersion: the
// object without its status (unless statusOnly), then the status. It
// returns the object last written (current if nothing was) and which
// patches were written.
func (c *Client[T]) patchMutated(ctx context.Context, current T, mutate func(T) error, statusOnly bool) (out T, spec, status bool, err error) {
	ns, name := current.GetNamespace(), current.GetName()
	changed := current.DeepCopyObject().(T)
	if err := mutate(changed); err != nil {
		return out, false, false, fmt.Errorf("create or patch %s %s: %w", c.resource, objectKey(ns, name), err)
	}
	before, err := fieldsOf(current)
	if err != nil {
		return out, false, false, fmt.Errorf("create or patch %s %s: %w", c.resource, objectKey(ns, name), err)
	}
	after, err := fieldsOf(changed)
	if err != nil {
		return out, false, false, fmt.Errorf("create or patch %s %s: %w", c.resource, objectKey(ns, name), err)
	}
	beforeStatus, hadStatus := before["status"]
	afterStatus, hasStatus := after["status"]
	delete(before, "status")
	delete(after, "status")
	out, rv := current, current.GetResourceVersion()
	if p := mergePatch(before, after); len(p) > 0 && !statusOnly {
		if out, err = c.Patch(ctx, ns, name, types.MergePatchType, locked(p, rv)); err != nil {
			return out, false, false, err
		}
		spec, rv = true, out.GetResourceVersion()
	}
	if !hadStatus && !hasStatus {
		return out, spec, false, nil
	}
	p := mergePatch(map[string]any{"status": beforeStatus}, map[string]any{"status": afterStatus})
	if len(p) == 0 {
		return out, spec, false, nil
	}
	written, err := c.PatchStatus(ctx, ns, name, types.MergePatchType, locked(p, rv))
	if err != nil {
		return out, spec, false, err
	}
	return written, spec, true, nil
}

// fieldsOf returns obj as its JSON fields, a form a merge patch is computed
// from: fresh maps, whatever the kind (an Unstructured's own map would be
// changed by the caller). Numbers stay json.Numbers, as encoded: a
// float64 would round an integer past 2^53, and a patch would write
// another value, or miss the change.
func fieldsOf(obj any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err = dec.Decode(&fields)
	return fields, err
}

// locked returns patch, encoded, with metadata.resourceVersion set to rv:
// the API server refuses it with 409 Conflict if the object changed since.
func locked(patch map[string]any, rv string) []byte {
	meta, _ := patch["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		patch["metadata"] = meta
	}
	meta["resourceVersion"] = rv
	data, _ := json.Marshal(patch) // JSON's own values: cannot fail
	return data
}

// mergePatch returns the JSON merge patch (RFC 7386) that turns before
// into after: after's values where they differ, recursing into objects
// present in both, and null for the fields after lacks. An empty patch
// means they are equal.
func mergePatch(before, after map[string]any) map[string]any {
	patch := map[string]any{}
	for k, a := range after {
		b, ok := before[k]
		if ok && reflect.DeepEqual(a, b) || !ok && a == nil { // null is absence
			continue
		}
		am, aObj := a.(map[string]any)
		bm, bObj := b.(map[string]any)
		if ok && aObj && bObj {
			if p := mergePatch(bm, am); len(p) > 0 {
				patch[k] = p
			}
			continue
		}
		patch[k] = a
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			patch[k] = nil
		}
	}
	return patch
}
