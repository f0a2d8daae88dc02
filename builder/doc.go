// Package builder wires a controller into a manager in one sentence:
//
//	err := builder.ControllerManagedBy(mgr).
//		For(builder.Kind(&samplev1.Foo{}, predicate.GenerationChanged[*samplev1.Foo]())).
//		Owns(builder.Kind(&appsv1.Deployment{})).
//		Watches(builder.Handle(&corev1.ConfigMap{}, handler.EnqueueFunc(fooForConfigMap))).
//		Complete(reconciler)
//
// For names the primary kind: its events enqueue the object itself. Owns
// names a kind the primary creates: its events enqueue the controlling
// owner of the primary kind (owner references with controller=true). Watches
// takes any kind with a handler of your own. Each input's predicates filter
// its events; WithEventFilter adds a predicate over object.Object to every
// input.
//
// Kinds come from the manager's scheme, so typed objects (*appsv1.Deployment,
// or your custom resource's Go type once added to the scheme) need nothing
// else. An *unstructured.Unstructured or *metav1.PartialObjectMetadata with
// its apiVersion and kind set watches any kind as unstructured or
// metadata-only objects. Every informer comes from the manager's factory, so
// controllers that watch the same kind share one watch and one cache.
//
// The builder wires what a controller always watches. Build returns the
// controller, which takes further watches, and gives them back, while the
// manager runs (controller.Controller's Watch and Unwatch).
//
// Go methods cannot take type parameters, so the typed part of each input is
// built by the generic functions Kind and Handle, and the builder's methods
// take the result.
package builder
