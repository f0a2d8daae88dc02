package shard

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Start joins the ring and keeps this replica's membership until ctx
// ends: it creates and renews the replica's Lease, watches the ring's
// Leases, acknowledges assignments once drained, and deletes the Leases
// of members that expired. When ctx ends it starts nothing more and, with
// WithReleaseOnCancel(true) (the default), waits for the reconciles in
// progress, keeping the Lease renewed meanwhile, and deletes the Lease so
// that the others take its ranges at once. It fails only when called
// twice; API errors are logged and retried, as leader election does.
func (r *Ring) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.running || r.leaving {
		r.mu.Unlock()
		return fmt.Errorf("shard: ring %q, identity %q: Start called twice", r.name, r.identity)
	}
	r.running = true
	r.mu.Unlock()
	r.o.log.Info("joining the ring", "lease", r.o.namespace+"/"+r.leaseName)

	var wg sync.WaitGroup
	wg.Go(func() { r.watchLeases(ctx) })
	r.keep(ctx)
	wg.Wait()

	r.mu.Lock()
	r.leaving = true
	r.notifyLocked(r.o.clock.Now())
	r.mu.Unlock()
	if r.o.releaseOnCancel {
		r.leave(context.WithoutCancel(ctx))
	}
	r.mu.Lock()
	r.running = false
	r.notifyLocked(r.o.clock.Now())
	r.mu.Unlock()
	return nil
}

// keep writes the Lease every retry period, and as soon as an
// acknowledgement is due, and deletes expired members' Leases.
func (r *Ring) keep(ctx context.Context) {
	t := r.o.clock.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			r.write(ctx)
			r.reap(ctx)
			r.mu.Lock()
			r.recomputeLocked(r.o.clock.Now()) // expiries and the renew deadline pass with time
			r.mu.Unlock()
			t.Reset(r.o.retryPeriod)
		case <-r.kick:
			r.mu.Lock()
			// After a failed write, acknowledgements wait for the next
			// retry period rather than hammer the API server.
			due := r.ackDueLocked() && r.o.clock.Since(r.own.failed) >= r.o.retryPeriod
			r.mu.Unlock()
			if due {
				r.write(ctx)
			}
		}
	}
}

// ackDueLocked reports whether this replica has drained for an
// assignment it has not acknowledged.
func (r *Ring) ackDueLocked() bool {
	return r.drainedLocked() && (len(r.own.pending) > 0 || !r.own.ack.Equal(r.assignment))
}

// write creates or renews the Lease, acknowledging the assignment if this
// replica has drained for it.
func (r *Ring) write(ctx context.Context) {
	r.mu.Lock()
	ack := r.own.ack
	if r.drainedLocked() {
		ack = r.assignment
	}
	if !ack.Equal(r.own.ack) && (len(r.own.pending) == 0 || !ack.Equal(r.own.pending[len(r.own.pending)-1])) {
		r.own.pending = append(r.own.pending, ack)
	}
	own := r.own
	r.mu.Unlock()

	sent := r.o.clock.Now()
	l, err := r.store(ctx, own, ack, sent)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.own.failed = r.o.clock.Now()
		switch {
		case apierrors.IsNotFound(err):
			// Deleted as expired: join again, with the same acknowledgement.
			r.own.exists = false
		case apierrors.IsConflict(err):
			// Either an earlier write was stored though it failed here,
			// or the Lease was deleted (an update of a deleted object
			// fails its UID precondition): read which.
			r.mu.Unlock()
			cur, gerr := r.api.Get(ctx, r.leaseName)
			r.mu.Lock()
			switch {
			case gerr == nil && cur.UID == r.own.uid:
				r.own.rv = cur.ResourceVersion // write over it next time
			case gerr == nil, apierrors.IsNotFound(gerr):
				r.own.exists = false // join again, as below
			}
		}
		if ctx.Err() == nil {
			r.o.log.Error(err, "writing the Lease", "lease", r.leaseName)
		}
		return
	}
	if !r.own.exists {
		r.o.log.Info("holding the Lease", "lease", r.leaseName, "uid", l.UID)
	}
	created := !r.own.exists || l.UID != r.own.uid
	r.own.exists, r.own.uid, r.own.rv, r.own.renewed, r.own.failed = true, l.UID, l.ResourceVersion, sent, time.Time{}
	if created || !ack.Equal(r.own.ack) || len(r.own.pending) > 0 {
		// A new Lease stores the acknowledgement anew: the watch must
		// show this write before it counts (see caughtUp).
		rv, _ := strconv.ParseUint(l.ResourceVersion, 10, 64)
		r.own.ack, r.own.ackRV, r.own.pending = ack, rv, nil
		r.o.log.V(1).Info("acknowledged", "drainedFor", ackValue(ack))
	}
	r.acknowledgedLocked(r.own.ack, r.o.clock.Now())
	r.recomputeLocked(r.o.clock.Now())
}

// store writes the Lease as own left it, with acknowledgement ack renewed
// at now: an update, or a create when it does not exist.
func (r *Ring) store(ctx context.Context, own ownLease, ack Assignment, now time.Time) (*coordinationv1.Lease, error) {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name: r.leaseName, Namespace: r.o.namespace, UID: own.uid, ResourceVersion: own.rv,
			Labels: map[string]string{RingLabel: r.name},
			Annotations: map[string]string{
				DrainedForAnnotation:   ackValue(ack),
				VirtualNodesAnnotation: strconv.Itoa(ack.virtualNodes),
			},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(r.identity),
			LeaseDurationSeconds: ptr.To(int32(r.o.leaseDuration / time.Second)),
			RenewTime:            &metav1.MicroTime{Time: now},
		},
	}
	if own.exists {
		return r.api.Update(ctx, l)
	}
	l.UID, l.ResourceVersion = "", ""
	l.Spec.AcquireTime = l.Spec.RenewTime
	got, err := r.api.Create(ctx, l)
	if !apierrors.IsAlreadyExists(err) {
		return got, err
	}
	// A Lease left by this identity's previous process, which is gone:
	// identities are unique among live replicas. Take it over.
	old, err := r.api.Get(ctx, r.leaseName)
	if err != nil {
		return nil, err
	}
	if old.Labels[RingLabel] != r.name {
		return nil, fmt.Errorf("shard: Lease %s/%s exists and is not ring %q's", r.o.namespace, r.leaseName, r.name)
	}
	l.UID, l.ResourceVersion = old.UID, old.ResourceVersion
	return r.api.Update(ctx, l)
}

// reap deletes the Leases of members that expired, each only if it is
// still as this replica saw it: a member that renewed meanwhile stays.
func (r *Ring) reap(ctx context.Context) {
	r.mu.Lock()
	now := r.o.clock.Now()
	var gone []*memberLease
	for id, l := range r.leases {
		if id != r.identity && l.expired(now) {
			gone = append(gone, l)
		}
	}
	healthy := r.healthyLocked(now)
	r.mu.Unlock()
	if !healthy {
		return // a replica that cannot renew is no judge of the others
	}
	for _, l := range gone {
		err := r.api.Delete(ctx, l.name, metav1.Preconditions{UID: &l.uid, ResourceVersion: &l.rv})
		switch {
		case err == nil:
			r.o.log.Info("deleted an expired member's Lease", "lease", l.name, "lastRenewed", l.renew)
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		default:
			r.o.log.Error(err, "deleting an expired member's Lease", "lease", l.name)
		}
	}
}

// leave waits for the reconciles in progress, renewing the Lease, then
// deletes it.
func (r *Ring) leave(ctx context.Context) {
	t := r.o.clock.NewTimer(0)
	defer t.Stop()
	var own ownLease
	for {
		r.mu.Lock()
		n := len(r.inflight)
		own = r.own
		r.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-r.kick:
		case <-t.C():
			r.write(ctx)
			t.Reset(r.o.retryPeriod)
		}
	}
	if !own.exists {
		return
	}
	err := r.api.Delete(ctx, r.leaseName, metav1.Preconditions{UID: &own.uid})
	if err != nil && !apierrors.IsNotFound(err) {
		r.o.log.Error(err, "deleting the Lease on leaving; it will expire", "lease", r.leaseName)
		return
	}
	r.mu.Lock()
	r.own.exists = false
	r.mu.Unlock()
	r.o.log.Info("left the ring")
}
