package informer

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/reconcile"
)

// An Informer is the reconcile.WriteCache of the writes package client
// makes through it: a controller holds a reconcile until the informer
// shows the writes the request's last reconcile made (see
// controller.WithReadYourWrites). Code that writes another way can record
// its writes against an informer itself, with reconcile.RecordWrite.
var _ reconcile.WriteCache = (*Informer[*metav1.PartialObjectMetadata])(nil)

// Shows reports whether the cache shows w: for a change, whether it has
// processed w's resourceVersion (HasProcessed, in w's namespace); for a
// deletion, whether it no longer holds the object with w's UID.
func (inf *Informer[T]) Shows(w reconcile.Write) bool {
	if w.Deleted {
		return !inf.holds(w)
	}
	return inf.HasProcessed(w.Namespace, w.ResourceVersion)
}

func (inf *Informer[T]) holds(w reconcile.Write) bool {
	obj, ok := inf.cache.Get(w.Namespace, w.Name)
	return ok && obj.GetUID() == w.UID
}

// WhenShows calls f once the cache may show w, as WhenProcessed does for
// w's resourceVersion. The server does not tell the resourceVersion of a
// deletion, so for one f runs when the watch of w's namespace next moves
// the cache forward, after which the caller asks Shows again.
func (inf *Informer[T]) WhenShows(w reconcile.Write, f func()) (cancel func() bool, waiting bool) {
	if !w.Deleted {
		return inf.WhenProcessed(w.Namespace, w.ResourceVersion, f)
	}
	if !inf.holds(w) {
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
