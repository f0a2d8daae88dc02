package shard

import (
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// The start rule, step by step, on a ring fed Leases by hand (as its watch
// would) and a fake clock: no API server is involved in the decision.
type protocol struct {
	t     *testing.T
	r     *Ring
	clock *clocktesting.FakeClock
	rv    int
}

func newProtocol(t *testing.T) *protocol {
	c := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	r, err := New(nowhere(t), "ring", "a", WithClock(c), WithVirtualNodes(8),
		WithLeaseDuration(15*time.Second), WithRenewDeadline(10*time.Second), WithRetryPeriod(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r.running = true
	r.own = ownLease{exists: true, uid: "uid-a", renewed: c.Now()}
	return &protocol{t: t, r: r, clock: c}
}

// see shows the ring member id's Lease acknowledging members, renewed now.
func (p *protocol) see(id string, members ...string) {
	p.rv++
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "ring-" + id, UID: types.UID("uid-" + id), ResourceVersion: strconv.Itoa(p.rv),
			Annotations: map[string]string{DrainedForAnnotation: strings.Join(members, ","), VirtualNodesAnnotation: "8"}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(id), LeaseDurationSeconds: ptr.To(int32(15)),
			RenewTime: &metav1.MicroTime{Time: p.clock.Now()}},
	}
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.r.setLeaseLocked(l, p.clock.Now())
	p.r.recomputeLocked(p.clock.Now())
}

// ack records that the ring's own write of an acknowledgement of members
// was stored at the next resourceVersion, and whether its watch showed it.
func (p *protocol) ack(shown bool, members ...string) {
	p.rv++
	a, err := NewAssignment(members, 8)
	if err != nil {
		p.t.Fatal(err)
	}
	p.r.mu.Lock()
	p.r.own.ack, p.r.own.ackRV, p.r.own.renewed = a, uint64(p.rv), p.clock.Now()
	p.r.mu.Unlock()
	if shown {
		p.see("a", members...)
	}
}

// may counts the probes the ring may start, and those among them that
// owner does not own in an assignment of members.
func (p *protocol) may(members ...string) (n int) {
	a, _ := NewAssignment(members, 8)
	for _, h := range probes {
		if p.r.MayStart(h) {
			n++
			if a.Owner(h) != "a" {
				p.t.Fatalf("a may start %#x, which %v gives %s", h, members, a.Owner(h))
			}
		}
	}
	return n
}

func TestStartRule(t *testing.T) {
	p := newProtocol(t)
	p.see("a")
	if n := p.may("a"); n != 0 {
		t.Fatalf("before acknowledging, a may start %d probes", n)
	}
	p.ack(false, "a")
	if n := p.may("a"); n != 0 {
		t.Fatalf("before its watch showed its acknowledgement, a may start %d probes", n)
	}
	p.see("a", "a")
	if n := p.may("a"); n != len(probes) {
		t.Fatalf("a alone and acknowledged may start %d of %d probes", n, len(probes))
	}

	// b joins: a stops starting b's ranges at once, and keeps its own.
	p.see("b")
	alone := p.may("a", "b")
	if alone == 0 || alone == len(probes) {
		t.Fatalf("with b joined, a may start %d of %d probes: want its share", alone, len(probes))
	}
	// b acknowledges before a has: b's acknowledgement covers only b's
	// ranges, which a no longer starts; nothing changes for a.
	p.see("b", "a", "b")
	if n := p.may("a", "b"); n != alone {
		t.Fatalf("after b acknowledged, a may start %d probes: want %d", n, alone)
	}

	// A member whose acknowledgement covers everything blocks a entirely,
	// while it is in view, live or expired.
	p.see("c", "c")
	if n := p.may("a", "b", "c"); n != 0 {
		t.Fatalf("with c acknowledging the whole ring, a may start %d probes", n)
	}
	p.clock.Step(16 * time.Second)
	p.ack(true, "a") // a renewed meanwhile
	p.see("b", "a", "b")
	p.r.mu.Lock()
	p.r.recomputeLocked(p.clock.Now())
	members := p.r.assignment.Members()
	p.r.mu.Unlock()
	if len(members) != 2 {
		t.Fatalf("c expired, but the members are %v", members)
	}
	if n := p.may("a", "b"); n != 0 {
		t.Fatalf("c expired but its Lease is not deleted: a may start %d probes", n)
	}
	p.r.mu.Lock()
	delete(p.r.leases, "c") // its Lease deleted
	p.r.mu.Unlock()
	if n := p.may("a", "b"); n != alone {
		t.Fatalf("c's Lease gone, a may start %d probes: want %d", n, alone)
	}

	// Past the renew deadline a starts nothing and owns nothing.
	p.clock.Step(10 * time.Second)
	if n := p.may("a", "b"); n != 0 || p.r.Owned() != nil {
		t.Fatalf("past its renew deadline, a may start %d probes and owns %v", n, p.r.Owned())
	}
}

// A reconcile in progress in a range a lost holds a's acknowledgement back
// until it ends; an unsettled acknowledgement narrows the starts.
func TestDrainAndPending(t *testing.T) {
	p := newProtocol(t)
	p.see("a")
	p.ack(true, "a")
	var lost uint64
	ab, _ := NewAssignment([]string{"a", "b"}, 8)
	for _, h := range probes {
		if ab.Owner(h) == "b" {
			lost = h
			break
		}
	}
	done, ok := p.r.Begin(lost)
	if !ok {
		t.Fatal("a alone may not start a probe")
	}
	p.see("b")
	p.r.mu.Lock()
	due := p.r.ackDueLocked()
	p.r.mu.Unlock()
	if due {
		t.Fatal("a would acknowledge a, b while reconciling a hash b gained")
	}
	if _, ok := p.r.Begin(lost); ok {
		t.Fatal("a started a hash it lost")
	}
	done()
	done() // a second call does nothing
	p.r.mu.Lock()
	due = p.r.ackDueLocked() && len(p.r.inflight) == 0
	// An acknowledgement of a, b being written while the lease may
	// still hold a alone: starts stay within both.
	p.r.own.pending = []Assignment{ab}
	p.r.mu.Unlock()
	if !due {
		t.Fatal("drained, a does not acknowledge a, b")
	}
	if n := p.may("a", "b"); n == 0 {
		t.Fatal("with an acknowledgement pending, a may start nothing it kept")
	}
	p.r.mu.Lock()
	p.r.own.pending = append(p.r.own.pending, Assignment{}) // a write of nothing, unsettled
	p.r.mu.Unlock()
	if n := p.may("a", "b"); n != 0 {
		t.Fatalf("with an acknowledgement of nothing unsettled, a may start %d probes", n)
	}
}
