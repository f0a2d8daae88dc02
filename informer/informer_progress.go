package informer

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/steadyctl/steady/object"
)

// Progress is how far an informer's cache has got, for telling a cache
// that is quiet (nothing new has arrived) from one that is behind (things
// arrived after it last advanced).
type Progress struct {
	// ResourceVersion is the resourceVersion the cache reflects, as
	// LastSyncResourceVersion: every change and bookmark up to it is in the
	// cache. It is "" before the first list.
	ResourceVersion string
	// Advanced is when ResourceVersion last moved forward; zero before the
	// first list is in the cache.
	Advanced time.Time
	// Received is when the last list, event or bookmark arrived from the
	// API server; zero before the first.
	Received time.Time
	// Pending is the number of objects with changes received and not yet
	// in the cache, over all of the informer's watches.
	Pending int
}

// HasProcessed reports whether the cache reflects every change up to
// resourceVersion in namespace: whether a reconcile reading it would see
// the result of a write the API server answered with resourceVersion, and
// of every change before it. It parses resourceVersion and makes a few
// atomic loads, no lock and no allocation: cheap enough to ask before
// every reconcile.
//
// The namespace picks what must have caught up. An informer of several
// namespaces (a Factory's, WithNamespaces) watches each on its own, so
// only that namespace's watch counts; namespace "" asks for all of them.
// An informer with one watch (all namespaces, one namespace, or a
// cluster-scoped kind) ignores namespace, except that one restricted to a
// namespace answers true for any other: its cache holds nothing of it, so
// it reflects every change there.
//
// resourceVersions are compared as numbers: kube-apiserver's are etcd
// revisions, one counter for the whole store, so a write's resourceVersion
// and the one the watch has reached compare across objects. Where that is
// not so — resourceVersion, or the one the cache reached, is not a decimal
// number, as some aggregated API servers answer — HasProcessed answers
// true: it fails open, and a caller gating work on it proceeds as it would
// without the gate; a watch that has delivered one such resourceVersion
// fails open from then on. A cache that has not listed yet has reached no
// revision: it answers false to every number.
//
// The answer is about the cache's contents, not handlers: a change counts
// as processed once it is in the cache, perhaps before handlers have been
// called with it. On an informer its factory has released, ask Current.
func (inf *Informer[T]) HasProcessed(namespace, resourceVersion string) bool {
	want, ok := revision(resourceVersion)
	if !ok {
		return true
	}
	for _, src := range inf.sourcesOf(namespace) {
		if src.progress.rev.Load() < want {
			return false
		}
	}
	return true
}

// WhenProcessed arranges for f to run once the cache reflects every change
// in namespace up to resourceVersion, as HasProcessed tells: so a caller
// can hold work until the cache has caught up with a write, with no
// polling.
//
// It returns waiting=false, and never calls f, when there is nothing to
// wait for: the cache already reflects resourceVersion; the comparison is
// impossible (resourceVersion or the cache's is not a decimal etcd
// revision, and it fails open as HasProcessed does); namespace is not one
// the informer caches; or the informer has stopped or been released.
// Otherwise f runs exactly once: when the cache catches up, or when the
// informer stops or its factory releases it, so no waiter is left behind
// (HasProcessed, asked of Current, tells which). f runs on the goroutine
// that advanced, stopped or released the informer, so it must not block;
// it may call the informer's methods.
//
// cancel removes the waiter if f has not run yet, and reports whether it
// did; after it returns true f never runs. A nil f is a function that does
// nothing.
func (inf *Informer[T]) WhenProcessed(namespace, resourceVersion string, f func()) (cancel func() bool, waiting bool) {
	want, ok := revision(resourceVersion)
	if !ok {
		return notWaiting, false
	}
	if f == nil {
		f = func() {}
	}
	srcs := inf.sourcesOf(namespace)
	switch len(srcs) {
	case 0:
		return notWaiting, false
	case 1:
		return srcs[0].progress.when(want, f)
	}
	return whenAll(srcs, want, f)
}

// whenAll runs f once every one of srcs has reached want: a waiter on each
// source that is behind, counting down to f.
func whenAll[T object.Object](srcs []*source[T], want uint64, f func()) (cancel func() bool, waiting bool) {
	var pending atomic.Int32
	pending.Store(1) // held until every waiter is registered
	done := func() {
		if pending.Add(-1) == 0 {
			f()
		}
	}
	cancels := make([]func() bool, 0, len(srcs))
	for _, src := range srcs {
		pending.Add(1)
		c, waits := src.progress.when(want, done)
		if !waits {
			pending.Add(-1)
			continue
		}
		cancels = append(cancels, c)
	}
	if pending.Add(-1) == 0 {
		return notWaiting, false // every source has caught up, meanwhile perhaps
	}
	return func() bool {
		// One removed waiter keeps the count above zero forever.
		removed := false
		for _, c := range cancels {
			removed = c() || removed
		}
		return removed
	}, true
}

func notWaiting() bool { return false }

// Progress returns how far the cache has got: the resourceVersion it
// reflects, when that last advanced, and when the last list, event or
// bookmark arrived from the API server. For an informer of several
// namespaces it is the progress of the namespace whose watch is least
// advanced. Both times are by the informer's clock (WithClock).
//
// While the cache keeps up, Advanced follows Received within the time it
// takes to apply a batch. A cache that is behind has received more than it
// has applied: Received stays later than Advanced, and now minus Advanced
// grows while things keep arriving. A quiet cache has both far back, and
// its watch's bookmarks still move them now and then.
func (inf *Informer[T]) Progress() Progress {
	least := inf.sources[0]
	for _, src := range inf.sources[1:] {
		if src.progress.rev.Load() < least.progress.rev.Load() {
			least = src
		}
	}
	p := &least.progress
	out := Progress{Advanced: p.advancedAt()}
	if r := least.refl.Load(); r != nil {
		out.Received = r.LastEventTime()
	}
	for _, src := range inf.sources {
		out.Pending += src.fifo.Len()
	}
	switch rev := p.rev.Load(); rev {
	case 0:
	case failOpen:
		out.ResourceVersion = least.fifo.LastStoreSyncResourceVersion()
	default:
		out.ResourceVersion = strconv.FormatUint(rev, 10)
	}
	return out
}

// sourcesOf returns the sources whose progress counts for namespace (see
// HasProcessed): none when the informer caches nothing of it. It does not
// allocate.
func (inf *Informer[T]) sourcesOf(namespace string) []*source[T] {
	if len(inf.sources) == 1 {
		if namespace != "" && len(inf.namespaces) == 1 && inf.namespaces[0] != namespace {
			return nil
		}
		return inf.sources
	}
	if namespace == "" {
		return inf.sources
	}
	if i, ok := inf.sourceIndex[namespace]; ok {
		return inf.sources[i : i+1]
	}
	return nil
}

// endProgress runs every waiter: the informer will not advance any more.
func (inf *Informer[T]) endProgress() {
	for _, src := range inf.sources {
		src.progress.end()
	}
}

// revision parses a resourceVersion as an etcd revision. It runs after
// every batch and before every reconcile, so it reads the digits itself,
// at a third of strconv.ParseUint's cost; numbers that might not fit in 64
// bits (20 digits and more) are left to ParseUint.
func revision(resourceVersion string) (uint64, bool) {
	if len(resourceVersion) == 0 || len(resourceVersion) > 19 {
		rev, err := strconv.ParseUint(resourceVersion, 10, 64)
		return rev, err == nil
	}
	var rev uint64
	for i := 0; i < len(resourceVersion); i++ {
		d := resourceVersion[i] - '0'
		if d > 9 {
			return 0, false
		}
		rev = rev*10 + uint64(d)
	}
	return rev, true
}
