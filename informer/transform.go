package informer

// DropManagedFields is a transform for SetTransform that removes
// metadata.managedFields, which controllers rarely read and which is often
// the largest part of a cached object. The informer applies it once per
// object, before caching, so it may modify obj in place.
func DropManagedFields[T Object](obj T) (T, error) {
	obj.SetManagedFields(nil)
	return obj, nil
}
