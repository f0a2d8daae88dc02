// Package event defines the typed events that flow from an informer through
// predicates to event handlers: one struct per kind of change, generic over
// the object type, so no code along the way needs a type assertion.
package event
