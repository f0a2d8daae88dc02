package informer

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// KindOptions is how a Factory caches one kind: the per-kind half of
// controller-runtime's cache.Options.ByObject, and its
// client.Options.Cache.DisableFor. The zero value changes nothing.
type KindOptions struct {
	// Namespaces replaces the factory's namespaces (WithNamespaces) for
	// this kind: its caches asked for namespace "" hold exactly these
	// namespaces' objects. []string{AllNamespaces} caches the kind
	// cluster-wide in a factory otherwise restricted. Empty: the
	// factory's. Names follow WithNamespaces' rules; a cluster-scoped
	// kind takes none (an error of the first informer asked for).
	Namespaces []string
	// Selector is used by informers of the kind asked for without
	// selectors, so the operator caches only the objects it manages.
	Selector object.Selector
	// Transform is applied once to every object of the kind before it is
	// cached or handed to handlers, after managedFields are dropped (see
	// WithKeepManagedFields) and before a transform set with
	// Informer.SetTransform. It gets the form the informer caches (the
	// typed object, *unstructured.Unstructured or
	// *metav1.PartialObjectMetadata) and must return the same type; it
	// may modify the object in place. An error leaves the object out of
	// the cache and is reported as a watch error, as a SetTransform error
	// is.
	Transform func(object.Object) (object.Object, error)
	// ShardSelector is the initial shard selector of every informer of
	// the kind (see Informer.SetShardSelector and
	// reflector.WithShardSelector), whatever its namespace and selectors:
	// a sharded controller's replica caches only its shard of the kind.
	// Empty: every object. A malformed selector is an error of NewFactory.
	ShardSelector string
	// Shared keeps the kind's objects decoded, shared by every reader and
	// handler, where caches are otherwise compact (WithCompact): reads of
	// the kind then cost nothing, and must not modify what they get.
	Shared bool
	// Uncached makes clients of the kind (package client) read from the
	// API server instead of a cache: no informer is created for them, so
	// the operator needs no list or watch permission on the kind and holds
	// none of its objects in memory (Secrets are the usual case). An
	// informer asked for explicitly — a controller that watches the kind
	// — is still created and caches as configured here.
	Uncached bool
}

// WithKind sets how a Factory caches kind gk (the version does not
// matter): see KindOptions. Giving it twice for one kind is an error of
// NewFactory.
func WithKind(gk schema.GroupKind, ko KindOptions) FactoryOption {
	// Copied once, here: the option may be applied by many factories at
	// once (one option list shared by parallel managers), so applying it
	// must not write to anything the closure captured.
	ko.Namespaces = append([]string(nil), ko.Namespaces...)
	return factoryOnly(func(o *options) {
		if o.kinds == nil {
			o.kinds = map[schema.GroupKind]KindOptions{}
		}
		if _, dup := o.kinds[gk]; dup && o.kindErr == nil {
			o.kindErr = fmt.Errorf("WithKind(%s) given twice", kindName(gk))
		}
		kc := ko
		kc.Namespaces = append([]string(nil), ko.Namespaces...)
		o.kinds[gk] = kc
	})
}

// Kind returns how the factory caches kind gk (see WithKind), with
// Namespaces as the set the
// kind's caches hold when asked for "": nil for the factory's own set
// (Namespaces), []string{AllNamespaces} for every namespace.
func (f *Factory) Kind(gk schema.GroupKind) KindOptions {
	ko := f.o.kinds[gk]
	ko.Namespaces = append([]string(nil), ko.Namespaces...)
	return ko
}

// checkKinds validates and normalizes the per-kind options at NewFactory.
func (o *options) checkKinds() error {
	if o.kindErr != nil {
		return o.kindErr
	}
	for gk, ko := range o.kinds {
		opt := fmt.Sprintf("WithKind(%s)", kindName(gk))
		if gk.Kind == "" {
			return fmt.Errorf("%s: no kind", opt)
		}
		if err := ko.Selector.Validate(); err != nil {
			return fmt.Errorf("%s: Selector: %w", opt, err)
		}
		if _, err := reflector.ParseShardSelector(ko.ShardSelector); err != nil {
			return fmt.Errorf("%s: ShardSelector: %w", opt, err)
		}
		if len(ko.Namespaces) > 0 {
			set, err := namespaceSet(opt+".Namespaces", ko.Namespaces)
			if err != nil {
				return err
			}
			if set == nil {
				set = []string{AllNamespaces}
			}
			ko.Namespaces = set
			o.kinds[gk] = ko
		}
	}
	return nil
}

// kindName names gk as kubectl does: "ConfigMap", "Deployment.apps".
func kindName(gk schema.GroupKind) string {
	if gk.Kind == "" {
		return fmt.Sprintf("%q", gk.String())
	}
	return gk.String()
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// kindTransform adapts a WithKind transform to an informer of T; nil for
// none.
func kindTransform[T object.Object](gk schema.GroupKind, fn func(object.Object) (object.Object, error)) func(T) (T, error) {
	if fn == nil {
		return nil
	}
	return func(obj T) (T, error) {
		out, err := fn(obj)
		if err != nil {
			return obj, fmt.Errorf("WithKind(%s).Transform: %w", kindName(gk), err)
		}
		t, ok := out.(T)
		if !ok {
			return obj, fmt.Errorf("WithKind(%s).Transform returned %T for a %T", kindName(gk), out, obj)
		}
		return t, nil
	}
}
