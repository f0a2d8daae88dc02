package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// The mirroring contract: what users put on their objects, and what the
// operator puts on the copies it makes.
const (
	enabledLabel     = "mirror.steady.dev/enabled" // on a source ConfigMap: "true" mirrors it
	targetLabel      = "mirror.steady.dev/target"  // on a namespace: "true" receives mirrors
	mirrorLabel      = "mirror.steady.dev/mirror"  // on a copy: made by this operator
	sourceAnnotation = "mirror.steady.dev/source"  // on a copy: "namespace/name" of its source

	// sourceIndex indexes copies by their source annotation in the shared
	// ConfigMap cache: the field index.
	sourceIndex = "mirror.source"
)

// operator keeps a copy of every source ConfigMap in every target namespace.
//
// Its requests name source ConfigMaps only. Three inputs produce them: a
// source's own events, a copy's events mapped back to its source, and a
// namespace's events mapped to every source (the map functions).
type operator struct {
	cms        *client.Client[*corev1.ConfigMap]
	namespaces *client.Client[*corev1.Namespace]

	// sources, targets and copies select the objects the operator acts on;
	// copyLabels are the labels it gives its copies.
	sources, targets, copies labels.Selector
	copyLabels               labels.Set

	out                                   io.Writer
	reconciles, created, updated, deleted atomic.Int64
}

// newOperator wires the operator into m. Every source, target namespace and
// copy must also carry the labels in scope: the example sets a run ID there
// so that, on a shared cluster, it never touches anything it did not create.
// A real operator would pass an empty scope.
func newOperator(m *manager.Manager, scope labels.Set, out io.Writer) (*operator, error) {
	cms, err := client.For[*corev1.ConfigMap](m.Factory(), "")
	if err != nil {
		return nil, fmt.Errorf("configmap client: %w", err)
	}
	namespaces, err := client.For[*corev1.Namespace](m.Factory(), "")
	if err != nil {
		return nil, fmt.Errorf("namespace client: %w", err)
	}
	with := func(key string) labels.Set { return labels.Merge(scope, labels.Set{key: "true"}) }
	o := &operator{
		cms:        cms,
		namespaces: namespaces,
		sources:    labels.SelectorFromSet(with(enabledLabel)),
		targets:    labels.SelectorFromSet(with(targetLabel)),
		copies:     labels.SelectorFromSet(with(mirrorLabel)),
		copyLabels: with(mirrorLabel),
		out:        out,
	}

	// The field index (controller-runtime: mgr.GetFieldIndexer().IndexField).
	// It must exist before the cache starts; the builder's ConfigMap inputs
	// below share this very informer, so it costs no second watch.
	if err := cms.Informer().AddIndex(sourceIndex, o.indexBySource); err != nil {
		return nil, fmt.Errorf("adding index %s: %w", sourceIndex, err)
	}

	// Copies live in other namespaces than their source, and owner
	// references cannot cross namespaces: Owns cannot find the source of a
	// copy, so a map function reads it from the copy's annotation. Each
	// input is filtered with predicate.WasOrIs, not NewFilter: the update
	// that takes a source's, copy's or target's label away is the very
	// event that must delete copies, and NewFilter, which judges the new
	// object only, would hide it.
	err = builder.ControllerManagedBy(m).Named("mirror").
		For(builder.Kind(&corev1.ConfigMap{}, predicate.WasOrIs(o.isSource))).
		Watches(builder.Handle(&corev1.ConfigMap{}, handler.EnqueueFunc(o.sourceOfCopy), predicate.WasOrIs(o.isCopy))).
		Watches(builder.Handle(&corev1.Namespace{}, handler.EnqueueFunc(o.sourcesForNamespace),
			predicate.WasOrIs(o.isTarget), predicate.LabelsChanged[*corev1.Namespace]())).
		Complete(o)
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (o *operator) isSource(cm *corev1.ConfigMap) bool {
	return o.sources.Matches(labels.Set(cm.Labels))
}
func (o *operator) isTarget(ns *corev1.Namespace) bool {
	return o.targets.Matches(labels.Set(ns.Labels))
}
func (o *operator) isCopy(cm *corev1.ConfigMap) bool {
	return o.copies.Matches(labels.Set(cm.Labels)) && cm.Annotations[sourceAnnotation] != ""
}

// indexBySource is the index function: a copy's value is its source's key
// ("namespace/name", object.Key, as reconcile.Request.String formats it);
// other ConfigMaps are not indexed.
func (o *operator) indexBySource(cm *corev1.ConfigMap) ([]string, error) {
	if !o.isCopy(cm) {
		return nil, nil
	}
	return []string{cm.Annotations[sourceAnnotation]}, nil
}

// sourceOfCopy maps a copy's event to its source, so that a copy edited or
// deleted by hand is put back.
func (o *operator) sourceOfCopy(_ context.Context, cm *corev1.ConfigMap) []reconcile.Request {
	src := object.ParseKey(cm.Annotations[sourceAnnotation])
	if src.Namespace == "" || !o.isCopy(cm) { // sources are namespaced: not one of ours
		return nil
	}
	return []reconcile.Request{{NamespacedName: src}}
}

// sourcesForNamespace maps a target namespace's event to every source: a new
// target needs copies of all of them, a former one must lose them.
// EnqueueFunc calls it with the old and the new namespace of an update, so
// a namespace that just lost its label is seen here as the target it was.
func (o *operator) sourcesForNamespace(ctx context.Context, ns *corev1.Namespace) []reconcile.Request {
	if !o.isTarget(ns) {
		return nil
	}
	sources, err := o.cms.List(ctx, client.Matching(object.Selector{Labels: o.sources.String()}))
	if err != nil { // only an unknown index fails a List; none is used here
		controller.LoggerFrom(ctx).Error(err, "listing sources")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(sources))
	for _, cm := range sources {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cm.Namespace, Name: cm.Name}})
	}
	return reqs
}

// Reconcile brings the copies of the source ConfigMap req names in line with
// it, and says what it did.
func (o *operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	n := o.reconciles.Add(1)
	did, err := o.reconcile(ctx, req)
	if err != nil {
		did = append(did, fmt.Sprintf("error (will retry): %v", err))
	}
	fmt.Fprintf(o.out, "  reconcile #%d of %s: %s\n", n, req, strings.Join(did, "; "))
	return reconcile.Result{}, err
}

func (o *operator) reconcile(ctx context.Context, req reconcile.Request) (did []string, err error) {
	src, err := o.cms.Get(ctx, req.Namespace, req.Name)
	switch {
	case apierrors.IsNotFound(err):
		src, did = nil, []string{"source gone"}
	case err != nil:
		return nil, fmt.Errorf("reading source: %w", err)
	case !o.isSource(src):
		did = []string{"no longer a source"}
	}

	// Where copies belong: every target namespace but the source's own.
	want := map[string]bool{}
	if src != nil && o.isSource(src) && src.DeletionTimestamp == nil {
		targets, err := o.namespaces.List(ctx, client.Matching(object.Selector{Labels: o.targets.String()}))
		if err != nil {
			return did, fmt.Errorf("listing target namespaces: %w", err)
		}
		for _, ns := range targets {
			if ns.Name != src.Namespace && ns.DeletionTimestamp == nil {
				want[ns.Name] = true
			}
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(want)) {
		action, err := o.ensureCopy(ctx, src, ns)
		if err != nil {
			return did, err
		}
		if action != "" {
			did = append(did, action)
		}
	}

	// Every copy of this source, wherever it is, straight from the index:
	// delete those in namespaces that no longer want one.
	copies, err := o.cms.List(ctx, client.MatchingIndex(sourceIndex, req.String()))
	if err != nil {
		return did, fmt.Errorf("listing copies: %w", err)
	}
	slices.SortFunc(copies, func(a, b *corev1.ConfigMap) int { return strings.Compare(a.Namespace, b.Namespace) })
	kept := 0
	for _, cp := range copies {
		if want[cp.Namespace] {
			kept++
			continue
		}
		err := o.cms.Delete(ctx, cp.Namespace, cp.Name)
		if apierrors.IsNotFound(err) {
			continue // deleted by an earlier reconcile; the cache has not heard yet
		}
		if err != nil {
			return did, err
		}
		o.deleted.Add(1)
		did = append(did, "deleted copy in "+cp.Namespace)
	}
	if len(did) == 0 {
		did = []string{fmt.Sprintf("in sync (%d copies)", kept)}
	}
	return did, nil
}

// ensureCopy creates or updates the copy of src in namespace ns and says what
// it did ("" for nothing).
func (o *operator) ensureCopy(ctx context.Context, src *corev1.ConfigMap, ns string) (string, error) {
	key := object.Key(src)
	cur, err := o.cms.Get(ctx, ns, src.Name)
	switch {
	case apierrors.IsNotFound(err):
		_, err := o.cms.Create(ctx, o.copyOf(src, ns))
		if apierrors.IsAlreadyExists(err) {
			return "", nil // made by an earlier reconcile; the cache has not heard yet
		}
		if err != nil {
			return "", err
		}
		o.created.Add(1)
		return "created copy in " + ns, nil
	case err != nil:
		return "", fmt.Errorf("reading copy in %s: %w", ns, err)
	case !o.isCopy(cur) || cur.Annotations[sourceAnnotation] != key:
		// Never overwrite what someone else made.
		return fmt.Sprintf("skipped %s: its ConfigMap %s is not a mirror of %s", ns, src.Name, key), nil
	case sameData(cur, src):
		return "", nil
	}

	// The cache may be behind: Modify writes only if the copy still
	// differs, and on a conflict re-reads it from the API server and tries
	// again.
	changed := false
	_, err = o.cms.Modify(ctx, ns, src.Name, func(cp *corev1.ConfigMap) error {
		changed = !sameData(cp, src)
		cp.Data, cp.BinaryData = maps.Clone(src.Data), maps.Clone(src.BinaryData)
		return nil
	})
	switch {
	case apierrors.IsNotFound(err):
		return "", nil // deleted meanwhile: its delete event brings us back
	case err != nil:
		return "", err
	case !changed:
		return "", nil
	}
	o.updated.Add(1)
	return "updated copy in " + ns, nil
}

// copyOf returns the copy of src for namespace ns.
func (o *operator) copyOf(src *corev1.ConfigMap, ns string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:        src.Name,
			Namespace:   ns,
			Labels:      maps.Clone(o.copyLabels),
			Annotations: map[string]string{sourceAnnotation: object.Key(src)},
		},
		Data:       maps.Clone(src.Data),
		BinaryData: maps.Clone(src.BinaryData),
	}
}

// sameData reports whether two ConfigMaps hold the same data.
func sameData(a, b *corev1.ConfigMap) bool {
	return maps.Equal(a.Data, b.Data) && maps.EqualFunc(a.BinaryData, b.BinaryData, bytes.Equal)
}
