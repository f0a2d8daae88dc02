package shard

import "time"

// NeedLeaderElection is false: every replica holds its own membership of
// the ring, so a manager (manager.Manager.Add) runs a Ring on every
// replica, also under leader election.
func (r *Ring) NeedLeaderElection() bool { return false }

// Owns reports whether the Assignment this replica sees gives it hash,
// healthy or not: it may start a reconcile there when MayStart allows,
// which may be later, once a handover is through or its Lease renewed. A
// controller parks a request it owns but may not start yet until Changed,
// and drops one it does not own, which its owner's informer delivers
// there. Before the replica has joined, and once its Lease is gone, it
// owns nothing.
func (r *Ring) Owns(hash uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.assignment.Owns(r.identity, hash)
}

// Metrics receives a ring's handovers; the manager records them in
// Prometheus (see manager.Manager.Add).
type Metrics interface {
	// Handover is called when this replica has acknowledged the member
	// set it sees, with how long after it first saw the members change:
	// the time it took to drain the ranges it lost.
	Handover(ring string, took time.Duration)
}

// SetMetrics sets where the ring reports its handovers (default nowhere).
// Set it before Start.
func (r *Ring) SetMetrics(m Metrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.metrics = m
}

// changeSeenLocked notes that the members changed, unless an earlier
// change is still unacknowledged: a handover lasts from the first change
// to the acknowledgement of the last.
func (r *Ring) changeSeenLocked(now time.Time) {
	if r.changeSeen.IsZero() {
		r.changeSeen = now
	}
}

// acknowledgedLocked reports a handover when the acknowledgement just
// stored is of the assignment in force.
func (r *Ring) acknowledgedLocked(ack Assignment, now time.Time) {
	if r.changeSeen.IsZero() || !ack.Equal(r.assignment) {
		return
	}
	if r.metrics != nil {
		r.metrics.Handover(r.name, now.Sub(r.changeSeen))
	}
	r.changeSeen = time.Time{}
}
