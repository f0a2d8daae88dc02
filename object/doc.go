// Package object names what every other package of steady handles: an API
// object with object metadata, and the key it is stored and queued under.
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
// The package sits below everything else in steady and imports none of it.
package object
