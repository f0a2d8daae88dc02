package informer

import "github.com/steadyctl/steady/object"

// DropManagedFields is a transform for SetTransform that removes
// metadata.managedFields, which controllers rarely read and which is often
// the largest part of a cached object. The informer applies it once per
// object, before caching, so it may modify obj in place.
func DropManagedFields[T object.Object](obj T) (T, error) {
	// No write when there is nothing to drop: the object may be shared
	// with a ListerWatcher that keeps it (a fake, say).
	if obj.GetManagedFields() != nil {
		obj.SetManagedFields(nil)
	}
	return obj, nil
}
