package object

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AddFinalizer adds finalizer to obj's finalizers unless it is there
// already, and reports whether it added it: whether obj needs writing.
// It changes obj only; write it back (client.Modify does both, safely).
// A nil obj, typed or not, gets nothing: AddFinalizer reports false.
func AddFinalizer(obj metav1.Object, finalizer string) bool {
	if isNil(obj) {
		return false
	}
	fs := obj.GetFinalizers()
	if slices.Contains(fs, finalizer) {
		return false
	}
	// Clip: never write into an array that obj's original may share.
	obj.SetFinalizers(append(slices.Clip(fs), finalizer))
	return true
}

// RemoveFinalizer removes finalizer from obj's finalizers, every copy of
// it, and reports whether there was one to remove. A nil obj, typed or
// not, has none.
func RemoveFinalizer(obj metav1.Object, finalizer string) bool {
	if isNil(obj) {
		return false
	}
	fs := obj.GetFinalizers()
	kept := slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == finalizer })
	if len(kept) == len(fs) {
		return false
	}
	obj.SetFinalizers(kept)
	return true
}

// HasFinalizer reports whether obj's finalizers include finalizer. A nil
// obj, typed or not, has none.
func HasFinalizer(obj metav1.Object, finalizer string) bool {
	return !isNil(obj) && slices.Contains(obj.GetFinalizers(), finalizer)
}
