// Package event defines the typed events that flow from an informer through
// predicates to event handlers: one struct per kind of change, generic over
// the object type (object.Object), so no code along the way needs a type
// assertion.
//
// The informer's handlers receive these types, and controller sources pass
// them on unchanged to predicates (package predicate) and event handlers
// (package handler): there is one vocabulary from the cache to the work
// queue. Create, Update and Delete come from the informer; Generic is for
// sources outside the API server.
//
// A Delete always carries the object's key as a types.NamespacedName, also
// when its last state is unknown: the informer may learn of a deletion only
// from a relist that no longer lists the object (DeleteStateUnknown, what
// client-go calls a DeletedFinalStateUnknown tombstone), and then Object is
// the last state it cached, possibly stale, or the zero value if it never
// had one.
package event
