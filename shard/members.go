package shard

import (
	"slices"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
)

// memberLease is a member's Lease as this replica last saw it.
type memberLease struct {
	name     string
	uid      types.UID
	rv       string
	renew    time.Time     // spec.renewTime
	duration time.Duration // spec.leaseDurationSeconds
	observed time.Time     // this replica's clock when renew last changed
	ack      Assignment    // bounds the member's reconciles
}

// expired reports whether the member has not renewed for its lease
// duration, by this replica's clock: the time it saw the renewal, not the
// time the member wrote in it, so that clocks need not agree.
func (l *memberLease) expired(now time.Time) bool { return now.Sub(l.observed) > l.duration }

// ownLease is this replica's Lease as its own writes left it.
type ownLease struct {
	exists  bool
	uid     types.UID
	rv      string
	renewed time.Time // when the last successful write was sent
	failed  time.Time // when the last write failed, if the last failed
	ack     Assignment
	// pending are acknowledgements being written, or whose writes failed
	// without saying whether they were stored: until a write succeeds,
	// the Lease may hold any of them, so reconciles start only where all
	// allow.
	pending []Assignment
	ackRV   uint64 // resourceVersion of the write that stored ack
	seenRV  uint64 // resourceVersion of the Lease as the watch last showed it
}

// caughtUp reports whether the watch has shown this replica its own
// latest acknowledgement: every other member's acknowledgement written
// before it is then in view too (see the package documentation).
func (o *ownLease) caughtUp() bool { return o.exists && o.seenRV >= o.ackRV }

// owns reports whether every acknowledgement the Lease may hold gives
// identity hash.
func (o *ownLease) owns(identity string, hash uint64) bool {
	if !o.ack.Owns(identity, hash) {
		return false
	}
	for _, p := range o.pending {
		if !p.Owns(identity, hash) {
			return false
		}
	}
	return true
}

// parseLease reads a Lease of ring; ok is false for one that is not a
// member's Lease (wrong name or no holder).
func (r *Ring) parseLease(l *coordinationv1.Lease) (id string, m *memberLease, ok bool) {
	if l.Spec.HolderIdentity == nil || l.Name != r.name+"-"+*l.Spec.HolderIdentity {
		return "", nil, false
	}
	id = *l.Spec.HolderIdentity
	m = &memberLease{name: l.Name, uid: l.UID, rv: l.ResourceVersion, duration: r.o.leaseDuration}
	if l.Spec.RenewTime != nil {
		m.renew = l.Spec.RenewTime.Time
	}
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 0 {
		m.duration = time.Duration(*d) * time.Second
	}
	m.ack = r.parseAck(id, l.Annotations)
	return id, m, true
}

// parseAck reads a member's acknowledgement. One that cannot be read is
// taken to cover every hash: a member whose claim is unknown blocks all.
func (r *Ring) parseAck(id string, ann map[string]string) Assignment {
	v := ann[DrainedForAnnotation]
	if v == "" {
		a, _ := NewAssignment(nil, r.o.virtualNodes)
		return a
	}
	vn := r.o.virtualNodes
	if s, ok := ann[VirtualNodesAnnotation]; ok {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = 0 // fails below
		}
		vn = n
	}
	a, err := NewAssignment(strings.Split(v, ","), vn)
	if err != nil {
		r.o.log.Error(err, "unreadable acknowledgement, taken to cover every hash", "member", id, "drainedFor", v)
		a, _ = NewAssignment([]string{id}, 1)
	}
	return a
}

// ackValue is the annotation value that acknowledges a.
func ackValue(a Assignment) string { return strings.Join(a.members, ",") }

// setLeaseLocked records a Lease the watch showed.
func (r *Ring) setLeaseLocked(l *coordinationv1.Lease, now time.Time) {
	id, m, ok := r.parseLease(l)
	if !ok {
		r.o.log.V(1).Info("ignoring a Lease that is not a member's", "lease", l.Name)
		return
	}
	m.observed = now
	if old, ok := r.leases[id]; ok && old.uid == m.uid && old.renew.Equal(m.renew) {
		m.observed = old.observed // not renewed since
	}
	r.leases[id] = m
	if id == r.identity && m.uid == r.own.uid {
		if n, err := strconv.ParseUint(m.rv, 10, 64); err == nil && n > r.own.seenRV {
			r.own.seenRV = n
		}
	}
}

// recomputeLocked derives the members and the assignment from the Leases
// in view, then reports changes and wakes the keeper.
func (r *Ring) recomputeLocked(now time.Time) {
	var members []string
	for id, l := range r.leases {
		if id == r.identity || !l.expired(now) {
			members = append(members, id)
		}
	}
	slices.Sort(members)
	if !slices.Equal(members, r.assignment.members) {
		a, err := NewAssignment(members, r.o.virtualNodes)
		if err != nil { // identities from distinct Lease names are distinct
			r.o.log.Error(err, "cannot assign the ring", "members", members)
		} else {
			r.o.log.Info("members changed", "members", members)
			r.assignment = a
			r.changeSeenLocked(now)
		}
	}
	r.notifyLocked(now)
	r.poke()
}
