package informer

import (
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/writes"
)

// An Informer is the writes.Cache of the writes that package client
// makes through it: a controller holds a reconcile until the informer
// shows the writes the request's last reconcile made (see
// controller.WithReadYourWrites). Code that writes another way can record
// its writes against an informer itself, with writes.Record.
var _ writes.Cache = (*Informer[*metav1.PartialObjectMetadata])(nil)

// Shows reports whether the cache shows w: for a change, whether it has
// processed w's resourceVersion (HasProcessed, in w's namespace); for a
// deletion, whether it no longer holds the object with w's UID. A cache
// whose resourceVersions are not numbers cannot tell when it will see a
// deletion (WhenShows), so it fails open for deletions too, as
// HasProcessed does for changes.
func (inf *Informer[T]) Shows(w writes.Write) bool {
	if w.Deleted {
		return !inf.holds(w) || inf.opaque(w.Namespace)
	}
	return inf.HasProcessed(w.Namespace, w.ResourceVersion)
}

// opaque reports whether a watch that namespace's changes come through has
// delivered a resourceVersion that is not a number: one whose progress
// cannot be followed.
func (inf *Informer[T]) opaque(namespace string) bool {
	for _, src := range inf.sourcesOf(namespace) {
		if src.progress.rev.Load() == failOpen {
			return true
		}
	}
	return false
}

func (inf *Informer[T]) holds(w writes.Write) bool {
	obj, ok := inf.cache.Get(w.Namespace, w.Name)
	return ok && obj.GetUID() == w.UID
}

// WhenShows calls f once the cache may show w, as WhenProcessed does for
// w's resourceVersion. The server does not tell the resourceVersion of a
// deletion, so for one f runs when the watch of w's namespace next moves
// the cache forward, after which the caller asks Shows again.
func (inf *Informer[T]) WhenShows(w writes.Write, f func()) (cancel func() bool, waiting bool) {
	if !w.Deleted {
		return inf.WhenProcessed(w.Namespace, w.ResourceVersion, f)
	}
	if inf.Shows(w) {
		return notWaiting, false
	}
	srcs := inf.sourcesOf(w.Namespace)
	if len(srcs) != 1 {
		return notWaiting, false // a cluster-scoped object is in the only source
	}
	rev := srcs[0].progress.rev.Load()
	if rev == failOpen {
		return notWaiting, false
	}
	return inf.WhenProcessed(w.Namespace, strconv.FormatUint(rev+1, 10), f)
}

// AsCached returns a copy of obj, an object as the API server returned it,
// as the informer's cache would hold it once the watch delivers it: with
// the informer's transforms applied (DropManagedFields on a factory's
// informer, the kind's and SetTransform's). It reports false when the
// cache would not hold obj at all, or the informer cannot tell: obj is
// outside its namespaces, label selector or shard (SetShardSelector), its
// field selector tests a field other than metadata.name and
// metadata.namespace, or a transform fails. Package client shows a
// reconcile's own writes this way (writes.ContextWithLog).
func (inf *Informer[T]) AsCached(obj T) (T, bool) {
	var zero T
	if !inf.wouldHold(obj) {
		return zero, false
	}
	out := obj.DeepCopyObject().(T)
	inf.mu.Lock()
	fn := inf.transformFunc()
	inf.mu.Unlock()
	if fn == nil {
		return out, true
	}
	out, err := fn(out)
	if err != nil {
		return zero, false
	}
	return out, true
}

// wouldHold reports whether the informer lists and watches obj, as far as
// it can tell without asking the server.
func (inf *Informer[T]) wouldHold(obj T) bool {
	if inf.namespaces != nil && !slices.Contains(inf.namespaces, obj.GetNamespace()) {
		return false
	}
	l, f, err := inf.selector.Parse()
	if err != nil || !l.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	for _, r := range f.Requirements() {
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			return false
		}
	}
	if !f.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}) {
		return false
	}
	ok, err := reflector.MatchesShardSelector(inf.ShardSelector(), obj)
	return ok && err == nil
}
