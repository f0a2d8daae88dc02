// Package object names what every other package of steady handles: an API
// object with object metadata, the key it is stored and queued under, and
// the parts of its metadata every controller edits: owners and finalizers.
//
// Object is the one type constraint for them all, from the reflector that
// lists objects to the handlers that turn their events into reconcile
// requests; *corev1.Pod, *unstructured.Unstructured and
// *metav1.PartialObjectMetadata all satisfy it.
//
// An object's key is "namespace/name", or "name" for a cluster-scoped
// object: the format of client-go's cache keys (MetaNamespaceKeyFunc), so
// keys read from an informer's cache or handed to a client-go lister mean
// the same thing everywhere. Key computes it from an object, FormatKey from
// a namespace and name, and ParseKey turns a key back into a
// types.NamespacedName, as events and reconcile requests carry it.
//
// # Owners and finalizers
//
// SetControllerReference and SetOwnerReference write the owner references
// that garbage collection and builder.Owns follow, with
// controller-runtime's checks: the owner must be in the object's
// namespace or cluster-scoped, a cluster-scoped object cannot have a
// namespaced owner, and an object has one controller (a second one is an
// *AlreadyOwnedError naming the first). RemoveOwnerReference and
// RemoveControllerReference take references away, HasOwnerReference and
// HasControllerReference look for them. The owner's kind comes from a
// scheme, or from the object itself for unstructured objects, and a
// reference names an owner by group, kind and name, whatever its version
// and UID.
//
// AddFinalizer, RemoveFinalizer and HasFinalizer edit metadata.finalizers
// and say whether anything changed. These functions change the object in
// memory only: write it back with client.Modify, which does nothing when
// nothing changed. Package finalizer runs the whole finalizer protocol
// around a reconciler's cleanup.
//
// No function here panics on a nil owner or object, whether a nil
// interface or a typed nil such as (*corev1.Pod)(nil): those that return
// an error return one naming the argument and its Go type, the others
// treat a nil object as one without metadata (false, or the key "").
//
// The package sits below everything else in steady and imports none of it.
package object
