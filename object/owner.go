package object

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OwnerOption changes the owner reference that SetControllerReference or
// SetOwnerReference writes. A nil OwnerOption is ignored.
type OwnerOption func(*metav1.OwnerReference)

// BlockOwnerDeletion sets the reference's blockOwnerDeletion: whether
// a foreground deletion of the owner waits for this object to be deleted
// first. SetControllerReference sets it to true by default,
// SetOwnerReference leaves it unset (false). Setting it to true needs
// permission to update the owner's finalizers subresource where the
// OwnerReferencesPermissionEnforcement admission plugin is on.
func BlockOwnerDeletion(block bool) OwnerOption {
	return func(ref *metav1.OwnerReference) { ref.BlockOwnerDeletion = &block }
}

// SetControllerReference makes owner the controller of obj: it adds (or
// updates) an owner reference to owner marked controller: true and
// blockOwnerDeletion: true. Garbage collection deletes obj after owner,
// and handlers that follow controllers (builder.Owns,
// handler.EnqueueOwner with handler.OnlyController) send obj's events to
// owner.
//
// owner's apiVersion and kind come from scheme, or from the object itself
// for *unstructured.Unstructured and *metav1.PartialObjectMetadata. The
// checks are controller-runtime's: owner must have a name and a UID (be
// read from the API server), must be in obj's namespace or
// cluster-scoped, and may not be namespaced when obj is cluster-scoped.
// An object has at most one controller: if another one is there already,
// the error is an *AlreadyOwnedError naming it and obj is unchanged.
//
// A nil owner or obj, typed or not, is an error naming it. It changes obj
// only; write it back (or set it before obj is created).
func SetControllerReference(owner, obj Object, scheme *runtime.Scheme, opts ...OwnerOption) error {
	if err := checkNil("SetControllerReference", owner, obj); err != nil {
		return err
	}
	ref, err := ownerReference(owner, obj, scheme)
	if err != nil {
		return fmt.Errorf("object: setting %s as controller of %s: %w", describe(owner), Key(obj), err)
	}
	ref.Controller, ref.BlockOwnerDeletion = new(true), new(true)
	apply(&ref, opts)
	if existing := metav1.GetControllerOfNoCopy(obj); existing != nil && !sameObject(*existing, ref) {
		return &AlreadyOwnedError{Key: Key(obj), Owner: *existing, refused: ref}
	}
	upsert(obj, ref)
	return nil
}

// SetOwnerReference adds (or updates) an owner reference to owner on obj
// that is not a controller reference: garbage collection deletes obj once
// all its owners are gone, and handler.EnqueueOwner without OnlyController
// follows it. The checks are SetControllerReference's but for the one
// controller: any number of owners may hold plain references. A reference
// that was a controller reference stays one. A nil owner or obj, typed or
// not, is an error naming it.
func SetOwnerReference(owner, obj Object, scheme *runtime.Scheme, opts ...OwnerOption) error {
	if err := checkNil("SetOwnerReference", owner, obj); err != nil {
		return err
	}
	ref, err := ownerReference(owner, obj, scheme)
	if err != nil {
		return fmt.Errorf("object: setting %s as owner of %s: %w", describe(owner), Key(obj), err)
	}
	refs := obj.GetOwnerReferences()
	if i := slices.IndexFunc(refs, func(r metav1.OwnerReference) bool { return sameObject(r, ref) }); i >= 0 {
		ref.Controller, ref.BlockOwnerDeletion = refs[i].Controller, refs[i].BlockOwnerDeletion
	}
	apply(&ref, opts)
	upsert(obj, ref)
	return nil
}

// RemoveOwnerReference removes obj's owner reference to owner, a
// controller reference or not, and reports whether there was one.
//
// No reference to remove is false and a nil error, not an error: unlike
// controller-runtime's RemoveOwnerReference, which fails then, so code
// ported from it that relied on that error must check the bool instead.
// Errors are for calls that cannot be answered: a nil owner or obj (typed
// or not), or an owner whose kind is unknown.
func RemoveOwnerReference(owner, obj Object, scheme *runtime.Scheme) (bool, error) {
	if err := checkNil("RemoveOwnerReference", owner, obj); err != nil {
		return false, err
	}
	ref, err := referenceTo(owner, scheme)
	if err != nil {
		return false, fmt.Errorf("object: removing %s as owner of %s: %w", describe(owner), Key(obj), err)
	}
	return removeReferences(obj, ref), nil
}

// RemoveControllerReference removes obj's controller reference if it
// names owner, so that another owner can become obj's controller. owner
// then no longer owns obj at all (garbage collection will not delete obj
// with it); call SetOwnerReference after it to keep owner as a plain owner.
//
// If owner is not obj's controller, obj is unchanged and the error wraps
// ErrNotController; if obj has no controller at all, it wraps
// ErrNoController too. As in controller-runtime, these are errors: the
// caller meant to let go of an object it controlled. A caller to whom it
// does not matter checks errors.Is(err, ErrNotController).
//
// Unlike controller-runtime, it looks up owner's kind before it reads
// obj, so that an owner missing from scheme is an error whatever obj
// holds; and it removes every reference to owner, should obj hold more
// than one, as RemoveOwnerReference does. A nil owner or obj, typed or
// not, is an error naming it. It changes obj only; write it back.
func RemoveControllerReference(owner, obj Object, scheme *runtime.Scheme) error {
	if err := checkNil("RemoveControllerReference", owner, obj); err != nil {
		return err
	}
	ref, err := referenceTo(owner, scheme)
	if err != nil {
		return fmt.Errorf("object: removing %s as controller of %s: %w", describe(owner), Key(obj), err)
	}
	switch c := metav1.GetControllerOfNoCopy(obj); {
	case c == nil:
		return fmt.Errorf("object: removing %s as controller of %s: %w: %w", describe(owner), Key(obj), ErrNotController, ErrNoController)
	case !sameObject(*c, ref):
		return fmt.Errorf("object: removing %s as controller of %s: %w: it is controlled by %s %s (%s)",
			describe(owner), Key(obj), ErrNotController, c.Kind, c.Name, c.APIVersion)
	}
	removeReferences(obj, ref)
	return nil
}

// HasControllerReference reports whether obj has a controller: an owner
// reference, to any owner, marked controller: true. A nil obj, typed or
// not, has none.
func HasControllerReference(obj Object) bool {
	return !isNil(obj) && metav1.GetControllerOfNoCopy(obj) != nil
}

// HasOwnerReference reports whether obj has an owner reference to owner, a
// controller reference or not. It takes its arguments as the other
// helpers here do: controller-runtime's
// HasOwnerReference(obj.GetOwnerReferences(), owner, scheme) is
// HasOwnerReference(owner, obj, scheme). The error, with false, is for a
// nil owner or obj (typed or not) or an owner whose kind is unknown.
func HasOwnerReference(owner, obj Object, scheme *runtime.Scheme) (bool, error) {
	if err := checkNil("HasOwnerReference", owner, obj); err != nil {
		return false, err
	}
	ref, err := referenceTo(owner, scheme)
	if err != nil {
		return false, fmt.Errorf("object: looking for %s among the owners of %s: %w", describe(owner), Key(obj), err)
	}
	return slices.ContainsFunc(obj.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return sameObject(r, ref) }), nil
}

// AlreadyOwnedError is SetControllerReference's error for an object that
// has another controller: Owner is that controller's reference.
type AlreadyOwnedError struct {
	Key     string                // the object's key
	Owner   metav1.OwnerReference // its controller
	refused metav1.OwnerReference // the controller that was refused
}

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("object: cannot make %s %s the controller of %s: it is already controlled by %s %s (%s); an object has one controller",
		e.refused.Kind, e.refused.Name, e.Key, e.Owner.Kind, e.Owner.Name, e.Owner.APIVersion)
}

// ErrNotController is wrapped by RemoveControllerReference's error when
// owner is not obj's controller: obj has another controller, or none (then
// the error wraps ErrNoController too).
var ErrNotController = errors.New("the owner is not the object's controller")

// ErrNoController is wrapped by RemoveControllerReference's error when obj
// has no controller at all.
var ErrNoController = errors.New("the object has no controller")

// ownerReference returns the reference to owner after checking that obj
// may have it.
func ownerReference(owner, obj Object, scheme *runtime.Scheme) (metav1.OwnerReference, error) {
	if owner.GetName() == "" || owner.GetUID() == "" {
		return metav1.OwnerReference{}, errors.New("the owner has no name or UID: use the owner as read from the API server")
	}
	switch ns := owner.GetNamespace(); {
	case ns == "":
		// A cluster-scoped owner may own objects of any scope.
	case obj.GetNamespace() == "":
		return metav1.OwnerReference{}, fmt.Errorf("the object has no namespace (is cluster-scoped) and the owner is in namespace %q: a cluster-scoped object cannot have a namespaced owner", ns)
	case obj.GetNamespace() != ns:
		return metav1.OwnerReference{}, fmt.Errorf("the owner is in namespace %q, the object in %q: owner references cannot cross namespaces", ns, obj.GetNamespace())
	}
	ref, err := referenceTo(owner, scheme)
	if err != nil {
		return metav1.OwnerReference{}, err
	}
	ref.UID = owner.GetUID()
	return ref, nil
}

// referenceTo returns a reference naming owner, as sameObject compares
// references: without a UID, which it ignores.
func referenceTo(owner Object, scheme *runtime.Scheme) (metav1.OwnerReference, error) {
	gvk, err := kindOf(owner, scheme)
	if err != nil {
		return metav1.OwnerReference{}, err
	}
	return metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: owner.GetName()}, nil
}

// kindOf returns obj's kind: from its own apiVersion and kind for the
// types that carry them at run time, from scheme for Go types.
func kindOf(obj Object, scheme *runtime.Scheme) (schema.GroupVersionKind, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	switch obj.(type) {
	case runtime.Unstructured, *metav1.PartialObjectMetadata:
		if gvk.Kind == "" || gvk.Version == "" {
			return gvk, fmt.Errorf("%T needs apiVersion and kind set", obj)
		}
		return gvk, nil
	}
	if scheme == nil {
		return gvk, fmt.Errorf("no scheme to find the kind of %T in (use the manager's: mgr.Cluster().Scheme())", obj)
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	switch {
	case err != nil:
		return gvk, fmt.Errorf("%T is not in the scheme: %w", obj, err)
	case len(gvks) > 1 && slices.Contains(gvks, gvk):
		return gvk, nil // registered in several versions; the object says which
	case len(gvks) > 1:
		return gvk, fmt.Errorf("%T is registered as %v: set its apiVersion and kind to say which", obj, gvks)
	}
	return gvks[0], nil
}

// sameObject reports whether two references name the same object: same
// group, kind and name (the version does not matter, and the UID changes
// when an owner is deleted and created again under its name).
func sameObject(a, b metav1.OwnerReference) bool {
	ga, erra := schema.ParseGroupVersion(a.APIVersion)
	gb, errb := schema.ParseGroupVersion(b.APIVersion)
	return erra == nil && errb == nil && ga.Group == gb.Group && a.Kind == b.Kind && a.Name == b.Name
}

// apply applies opts to ref, skipping nil ones.
func apply(ref *metav1.OwnerReference, opts []OwnerOption) {
	for _, opt := range opts {
		if opt != nil {
			opt(ref)
		}
	}
}

// removeReferences removes obj's references to the object ref names and
// reports whether there were any. It never writes into obj's array, which
// a cached original may share.
func removeReferences(obj Object, ref metav1.OwnerReference) bool {
	refs := obj.GetOwnerReferences()
	kept := slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return sameObject(r, ref) })
	if len(kept) == len(refs) {
		return false
	}
	obj.SetOwnerReferences(kept)
	return true
}

// upsert replaces obj's reference to the object ref names, or adds ref.
func upsert(obj Object, ref metav1.OwnerReference) {
	refs := slices.Clone(obj.GetOwnerReferences())
	if i := slices.IndexFunc(refs, func(r metav1.OwnerReference) bool { return sameObject(r, ref) }); i >= 0 {
		refs[i] = ref
	} else {
		refs = append(refs, ref)
	}
	obj.SetOwnerReferences(refs)
}

// describe names an object for errors: its Go type and key.
func describe(obj Object) string { return fmt.Sprintf("%T %s", obj, Key(obj)) }
