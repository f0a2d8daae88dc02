package shard

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

// handovers records what a ring reports to its Metrics.
type handovers struct {
	mu   sync.Mutex
	took []time.Duration
}

func (h *handovers) Handover(ring string, took time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.took = append(h.took, took)
}

func (h *handovers) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.took)
}

// A member that holds a reconcile in a range it loses acknowledges the
// new members, and reports the handover, only once the reconcile is
// done; Owns follows the assignment while MayStart waits. A Ring needs
// no leader election.
func TestHandoverReportedWhenDrained(t *testing.T) {
	ns := testkit.Namespace(t, "shard-")
	cl := testCluster(t)
	h := &handovers{}
	a := startRingWith(t, cl, ns, "a", func(r *Ring) { r.SetMetrics(h) })
	if a.NeedLeaderElection() {
		t.Fatal("a Ring needs leader election")
	}
	testkit.Eventually(t, 10*time.Second, "a joined and acknowledged itself", func() bool { return h.count() == 1 && a.MayStart(probes[0]) })

	// Hold a reconcile of a hash that b will take.
	two := mustAssign(t, []string{"a", "b"}, DefaultVirtualNodes)
	var held uint64
	for _, p := range probes {
		if two.Owner(p) == "b" {
			held = p
			break
		}
	}
	end, ok := a.Begin(held)
	if !ok {
		t.Fatal("a may not begin a hash it owns alone")
	}
	b := startRing(t, cl, ns, "b")
	testkit.Eventually(t, 10*time.Second, "both see both", func() error {
		if len(a.Members()) != 2 || len(b.Members()) != 2 {
			return fmt.Errorf("a sees %v, b sees %v", a.Members(), b.Members())
		}
		return nil
	})
	seen := time.Now() // a has seen b join by now
	if !b.Owns(held) || b.MayStart(held) || a.Owns(held) {
		t.Fatalf("while a reconciles: b owns %t, may start %t; a owns %t: want true, false, false", b.Owns(held), b.MayStart(held), a.Owns(held))
	}
	if n := h.count(); n != 1 {
		t.Fatalf("%d handovers reported while a still reconciles a hash it lost, want only its join", n)
	}
	ending := time.Now()
	end()
	testkit.Eventually(t, 10*time.Second, "a's handover reported, b may start", func() bool { return h.count() == 2 && b.MayStart(held) })
	h.mu.Lock()
	defer h.mu.Unlock()
	if took, least := h.took[1], ending.Sub(seen); took < least {
		t.Fatalf("handover took %v: less than the %v a held its reconcile after seeing b join", took, least)
	}
}
