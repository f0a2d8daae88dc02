package predicate

import (
	"fmt"
	"maps"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

// Option configures the predicates of this package that take options.
type Option func(*options)

type options struct {
	log      logr.Logger
	removals bool
}

// WithLogger sets where a change predicate reports events it drops because
// an object is missing (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithRemovals(true) makes LabelSelector also pass an update whose old
// object matched and whose new one does not: the label removal a
// controller must clean up after (see WasOrIs). Default false, the new
// object only, as controller-runtime's LabelSelectorPredicate.
func WithRemovals(pass bool) Option { return func(o *options) { o.removals = pass } }

func newPredicateOptions(opts []Option) options {
	o := options{log: logr.Discard()}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// onUpdate builds a predicate that passes creates, deletes and generic
// events, and updates for which changed says so. An update missing either
// object is dropped and logged, never a panic.
func onUpdate[T object.Object](name string, changed func(old, new T) bool, opts []Option) Predicate[T] {
	o := newPredicateOptions(opts)
	return metadataFuncs[T]{Funcs[T]{UpdateFunc: func(e event.Update[T]) bool {
		if event.IsNil(e.ObjectOld) || event.IsNil(e.ObjectNew) {
			o.log.Info("predicate dropped an update with a missing object", "predicate", name,
				"oldMissing", event.IsNil(e.ObjectOld), "newMissing", event.IsNil(e.ObjectNew))
			return false
		}
		return changed(e.ObjectOld, e.ObjectNew)
	}}}
}

// GenerationChanged passes updates that change what a controller acts on:
// a new metadata.generation (a spec change; status and metadata writes leave
// it alone, which is what breaks the reconcile-writes-status-reconciles loop),
// the start of deletion, or a different object under the same name.
//
// Deletion: when kube-apiserver first sets deletionTimestamp on an object
// held by finalizers it also increments generation, but only for kinds that
// track generation (generation > 0: Deployments, custom resources...). For
// kinds that do not (ConfigMaps, Secrets...), generation stays 0, so a plain
// generation check would hide the deletion from the reconciler and the
// finalizer would never be removed. GenerationChanged therefore also passes
// any update that sets deletionTimestamp.
//
// Re-creation: an object deleted and re-created under the same name, seen by
// the informer only through a relist, arrives as an update whose generation
// may well be the same (1 → 1). A changed UID lets it through.
//
// Kinds without a generation: the API server sets metadata.generation only
// for kinds whose storage tracks it (Deployments, custom resources...).
// For ConfigMaps, Secrets, Services, Namespaces and others it stays 0
// through every change, and
// GenerationChanged drops every update of theirs but the two above: a
// controller of a ConfigMap's data would never hear of an edit. For those
// kinds use ResourceVersionChanged (every stored change, no resyncs), or
// LabelsChanged or AnnotationsChanged to hear of those only.
//
// Creates, deletes and generic events always pass.
func GenerationChanged[T object.Object](opts ...Option) Predicate[T] {
	return onUpdate("GenerationChanged", func(old, new T) bool {
		return old.GetGeneration() != new.GetGeneration() ||
			old.GetUID() != new.GetUID() ||
			(old.GetDeletionTimestamp() == nil && new.GetDeletionTimestamp() != nil)
	}, opts)
}

// ResourceVersionChanged passes updates whose resourceVersion changed, which
// drops the no-op updates of a resync. Other events pass.
func ResourceVersionChanged[T object.Object](opts ...Option) Predicate[T] {
	return onUpdate("ResourceVersionChanged", func(old, new T) bool {
		return old.GetResourceVersion() != new.GetResourceVersion()
	}, opts)
}

// LabelsChanged passes updates that change metadata.labels. Other events pass.
func LabelsChanged[T object.Object](opts ...Option) Predicate[T] {
	return onUpdate("LabelsChanged", func(old, new T) bool {
		return !maps.Equal(old.GetLabels(), new.GetLabels())
	}, opts)
}

// AnnotationsChanged passes updates that change metadata.annotations. Other
// events pass.
func AnnotationsChanged[T object.Object](opts ...Option) Predicate[T] {
	return onUpdate("AnnotationsChanged", func(old, new T) bool {
		return !maps.Equal(old.GetAnnotations(), new.GetAnnotations())
	}, opts)
}

// LabelSelector passes events whose object matches sel: for updates, the
// new object, or either object with WithRemovals(true). An invalid
// selector is an error that quotes it.
func LabelSelector[T object.Object](sel metav1.LabelSelector, opts ...Option) (Predicate[T], error) {
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return nil, fmt.Errorf("predicate: label selector %s: %w", metav1.FormatLabelSelector(&sel), err)
	}
	f := filter(func(obj T) bool { return s.Matches(labels.Set(obj.GetLabels())) }, newPredicateOptions(opts).removals)
	return metadataFuncs[T]{f.(Funcs[T])}, nil
}
