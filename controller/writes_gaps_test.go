package controller

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/writes"
)

// A cache that catches up after the gate found it behind but before the
// gate asked it for a notification gives none (there is nothing left to
// wait for): the request must run at once, not after the wait bound.
func TestReadYourWritesCacheCatchingUpWhileChecked(t *testing.T) {
	g := startGate(t) // the bound is 10s of a fake clock nobody moves
	defer g.stop()
	g.q.Add(req("a"))
	g.expectCall() // records the write
	g.cache.catchUpOnShows.Store(true)
	g.q.Add(req("a"))
	g.expectCall()
}

// revCache is a writes.Cache at revision rev, holding the objects
// of the UIDs in holds.
type revCache struct {
	rev   uint64
	holds map[types.UID]bool
}

func (c *revCache) Shows(w writes.Write) bool {
	if w.Deleted {
		return !c.holds[w.UID]
	}
	rv, err := strconv.ParseUint(w.ResourceVersion, 10, 64)
	return err != nil || c.rev >= rv
}

func (c *revCache) WhenShows(writes.Write, func()) (func() bool, bool) { return nil, false }

// One write per cache and namespace stands for all of them: the newest.
// Deleting that object in the same reconcile must not drop what it stood
// for: a reconcile that updates b, creates a and deletes a waits for b's
// update (and a's creation) to be in the cache, not only for a to be gone
// from it, which a cache that has not seen a's creation already is.
func TestPendingWritesDeletionKeepsTheNewestRevision(t *testing.T) {
	cache := &revCache{rev: 5, holds: map[types.UID]bool{}}
	var p pendingWrites
	p.add(writes.Write{Cache: cache, Namespace: "ns", Name: "b", UID: "ub", ResourceVersion: "8"})
	p.add(writes.Write{Cache: cache, Namespace: "ns", Name: "a", UID: "ua", ResourceVersion: "10"})
	p.add(writes.Write{Cache: cache, Namespace: "ns", Name: "a", UID: "ua", Deleted: true})
	if p.shown() {
		t.Fatal("shown by a cache at revision 5 that never held a: b's update at 8 is lost")
	}
	cache.rev, cache.holds["ua"] = 10, true // a's creation arrives
	if p.shown() {
		t.Fatal("shown while the cache holds the deleted a")
	}
	cache.rev, cache.holds["ua"] = 11, false // and its deletion
	if !p.shown() {
		t.Fatalf("not shown by a cache past every write: %v", p.writes)
	}
}
