package informer

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/reflector"
)

// namespaceSet checks the namespaces given to option opt and returns them
// sorted, or nil when they ask for every namespace (AllNamespaces).
func namespaceSet(opt string, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no namespace (pass informer.AllNamespaces for every namespace)", opt)
	}
	seen := make(map[string]bool, len(names))
	for _, ns := range names {
		switch {
		case ns == AllNamespaces && len(names) == 1:
			return nil, nil
		case ns == AllNamespaces:
			return nil, fmt.Errorf("%s: AllNamespaces beside namespace names", opt)
		case ns == "":
			return nil, fmt.Errorf("%s: empty namespace name", opt)
		case seen[ns]:
			return nil, fmt.Errorf("%s: namespace %q given twice", opt, ns)
		}
		if errs := validation.ValidateNamespaceName(ns, false); len(errs) > 0 {
			return nil, fmt.Errorf("%s: namespace %q: %s", opt, ns, strings.Join(errs, "; "))
		}
		seen[ns] = true
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// Namespaces returns the namespaces the factory's caches of namespaced
// kinds are restricted to (WithNamespace, WithNamespaces), sorted, or nil
// when they are not. WithKind may give a kind other ones; NamespacesFor
// answers for a kind.
func (f *Factory) Namespaces() []string { return slices.Clone(f.o.namespaces) }

// NamespacesFor returns the namespaces a cache of kind gvk asked for
// namespace holds, as For, ForUnstructured and ForMetadata resolve them:
// nil for every namespace (and for cluster-scoped kinds); for "", the
// kind's namespaces (WithKind) or else the factory's (WithNamespaces); a
// namespace outside those is an error naming it, the set and the option
// that made the set; AllNamespaces asks for every namespace explicitly.
// Package client uses it to scope the reads of a kind that is not cached.
func (f *Factory) NamespacesFor(gvk schema.GroupVersionKind, namespace string) ([]string, error) {
	mapping, err := f.c.RESTMapping(gvk)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	set, err := f.namespacesFor(mapping, namespace)
	if err != nil {
		return nil, fmt.Errorf("informer factory: %w", err)
	}
	return set, nil
}

func (f *Factory) namespacesFor(mapping *meta.RESTMapping, namespace string) ([]string, error) {
	gk := mapping.GroupVersionKind.GroupKind()
	kind := kindName(gk)
	ko := f.o.kinds[gk]
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		switch {
		case len(ko.Namespaces) > 0:
			return nil, fmt.Errorf("WithKind(%s).Namespaces: %[1]s is cluster-scoped", kind)
		case namespace != "" && namespace != AllNamespaces:
			return nil, fmt.Errorf("%s is cluster-scoped: ask for namespace \"\", not %q", kind, namespace)
		}
		return nil, nil
	}
	set, opt := f.o.namespaces, f.o.namespacesOpt
	if len(ko.Namespaces) > 0 {
		set, opt = ko.Namespaces, fmt.Sprintf("WithKind(%s).Namespaces", kind)
		if set[0] == AllNamespaces {
			set = nil
		}
	}
	switch {
	case namespace == AllNamespaces:
		return nil, nil
	case namespace == "":
		return slices.Clone(set), nil
	case set != nil && !slices.Contains(set, namespace):
		return nil, fmt.Errorf("%s in namespace %q: the factory caches %s in namespaces %s only (%s); "+
			"pass informer.AllNamespaces for a cluster-wide cache, or use a factory of its own", kind, namespace, kind, quoteAll(set), opt)
	}
	if errs := validation.ValidateNamespaceName(namespace, false); len(errs) > 0 {
		return nil, fmt.Errorf("%s in namespace %q: %s", kind, namespace, strings.Join(errs, "; "))
	}
	return []string{namespace}, nil
}

// checkCaching validates and normalizes the namespace and per-kind options
// at NewFactory.
func (o *options) checkCaching() error {
	if o.namespaces != nil {
		set, err := namespaceSet(o.namespacesOpt, o.namespaces)
		if err != nil {
			return err
		}
		o.namespaces = set
	}
	return o.checkKinds()
}

// listerWatchers returns key's ListerWatcher of each namespace, or the one
// of every namespace when namespaces is nil.
func listerWatchers(mapping *meta.RESTMapping, namespaces []string, key factoryKey,
	newLW func(gvr schema.GroupVersionResource, namespace string) (reflector.ListerWatcher, error)) ([]reflector.ListerWatcher, error) {
	if namespaces == nil {
		namespaces = []string{""}
	}
	lws := make([]reflector.ListerWatcher, len(namespaces))
	for i, ns := range namespaces {
		lw, err := newLW(mapping.Resource, ns)
		if err != nil {
			return nil, err
		}
		lws[i] = &selectingLW{lw: lw, labels: key.labels, fields: key.fields}
	}
	return lws, nil
}
