// Package predicate filters the events an informer produces before they
// reach an event handler and become reconcile requests.
//
// A Predicate has one method per kind of event (package event) and returns
// true to let the event through. Funcs adapts plain functions, NewFilter
// builds one from a single test on the object, WasOrIs one that also
// passes the update that makes an object stop matching (a label removed:
// the event a clean-up needs), and And, Or and Not combine them. The change predicates — GenerationChanged, ResourceVersionChanged,
// LabelsChanged, AnnotationsChanged — look only at updates and let every
// other event through.
//
// The classic reason to filter: a reconciler that writes its object's status
// causes an update event, which reconciles again, which writes status again.
// Status writes do not change metadata.generation, so GenerationChanged stops
// that loop, while still passing the start of a deletion (see its
// documentation for what kube-apiserver does with generation then) and an
// object re-created under the same name. Kinds whose API server does not
// track metadata.generation (ConfigMap, Secret, Service, Namespace...)
// keep it at 0 through every change: GenerationChanged would hide their
// edits, so filter them with ResourceVersionChanged (or LabelsChanged,
// AnnotationsChanged) instead.
//
// Predicates are generic over the object type, so they never type-assert. An
// update missing its old or new object is dropped (and logged with
// WithLogger) rather than causing a panic.
package predicate
