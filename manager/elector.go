package manager

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// leaseAPI is what an elector asks of the API server: the Leases of the
// election's namespace (a leases.Client). Errors are the API server's
// status errors, possibly wrapped.
type leaseAPI interface {
	Get(ctx context.Context, name string) (*coordinationv1.Lease, error)
	Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
}

// jitterFactor stretches a candidate's wait between attempts to between 1
// and 1+jitterFactor retry periods, as client-go's elector does, so that
// candidates started together do not ask the API server in step.
const jitterFactor = 1.2

// errNotLeading is what run returns, wrapped with the reason, when this
// candidate stopped leading while its context was live: it could not renew
// the Lease in time, or another candidate holds it.
var errNotLeading = errors.New("stopped leading")

// elector campaigns for one Lease, in the protocol of client-go's
// tools/leaderelection, so that candidates of either kind share a Lease:
// an operator migrating from controller-runtime may run replicas of both
// during a rolling update. The Lease's spec is the record: the holder,
// the lease duration in whole seconds, the acquire and renew times and
// the count of transitions.
//
// A candidate acquires the Lease when it does not exist, has no holder,
// or its record has not changed for its lease duration as this candidate's
// own clock measures from when it saw it change: another machine's
// renewTime is never compared with this one's clock. The leader renews it
// every retry period and stops leading when it has not renewed for the
// renew deadline, which is shorter than the lease duration, so it has
// stopped before another candidate may take over. On leaving, the leader
// releases the Lease (no holder, a lease duration of 1 s) so that a
// standby takes over at its next attempt.
//
// Like client-go's elector when not coordinated, it neither reads nor
// keeps the spec's strategy and preferredHolder (coordinated leader
// election, KEP-4355): a Lease it writes carries the record alone.
//
// An elector is used by one goroutine: its run.
type elector struct {
	api                  leaseAPI
	namespace, name      string // the Lease's
	identity             string
	leaseDuration        time.Duration
	renewDeadline, retry time.Duration
	clock                clock.WithDelayedExecution
	jitter               func(time.Duration) time.Duration // a candidate's wait between attempts
	log                  logr.Logger
	refused              func(error) // called when the API server forbids a call on the Lease

	lease    *coordinationv1.Lease // as last read or written; nil before the first
	changed  time.Time             // when this candidate saw lease's record change
	renewed  time.Time             // when this candidate began its last successful write
	reported string                // the holder last logged
}

// newElector returns the elector of identity for Lease namespace/name,
// with client-go's constraints on the timings: the lease duration (whole
// seconds, as the Lease stores it) is longer than the renew deadline,
// which is longer than the jittered retry period.
func newElector(api leaseAPI, namespace, name, identity string, leaseDuration, renewDeadline, retry time.Duration) (*elector, error) {
	switch {
	case identity == "":
		return nil, errors.New("empty identity")
	case leaseDuration < time.Second:
		return nil, fmt.Errorf("LeaseDuration %v: the Lease counts whole seconds: want at least 1s", leaseDuration)
	case leaseDuration <= renewDeadline:
		return nil, fmt.Errorf("LeaseDuration %v: want more than the RenewDeadline %v", leaseDuration, renewDeadline)
	case retry <= 0:
		return nil, fmt.Errorf("RetryPeriod %v: want more than 0", retry)
	case renewDeadline <= time.Duration(jitterFactor*float64(retry)):
		return nil, fmt.Errorf("RenewDeadline %v: want more than %v times the RetryPeriod %v", renewDeadline, jitterFactor, retry)
	}
	return &elector{
		api: api, namespace: namespace, name: name, identity: identity,
		leaseDuration: leaseDuration, renewDeadline: renewDeadline, retry: retry,
		clock:   clock.RealClock{},
		jitter:  func(d time.Duration) time.Duration { return d + time.Duration(rand.Float64()*jitterFactor*float64(d)) },
		log:     logr.Discard(),
		refused: func(error) {},
	}, nil
}

// run campaigns until ctx ends. Once elected it calls lead, which must not
// block, with a context that ends when leading does. When ctx ends while
// leading, run releases the Lease before it returns nil. It returns
// errNotLeading, without writing the Lease again, when the leader could
// not renew it in time: the leader's work may still be winding down, and
// the Lease's expiry is what keeps the next leader from starting beside it.
func (e *elector) run(ctx context.Context, lead func(leading context.Context)) error {
	e.log.Info("campaigning for the leader lease")
	if !e.acquire(ctx) {
		return nil
	}
	// An attempt that succeeded as ctx ended leads nothing: it releases.
	if ctx.Err() == nil {
		leading, stop := context.WithCancel(ctx)
		lead(leading)
		err := e.keep(ctx)
		stop()
		if err != nil {
			return err
		}
	}
	e.release()
	return nil
}

// acquire tries for the Lease every jittered retry period until it holds
// it (true) or ctx ends (false).
func (e *elector) acquire(ctx context.Context) bool {
	for ctx.Err() == nil {
		if e.try(ctx) {
			return true
		}
		e.sleep(ctx, e.jitter(e.retry))
	}
	return false
}

// keep renews the Lease every retry period until ctx ends (nil), a renew
// deadline passes without a renewal, or the Lease is seen held by another
// (errNotLeading). Requests in flight at the deadline are cancelled.
func (e *elector) keep(ctx context.Context) error {
	for {
		deadline := e.renewed.Add(e.renewDeadline)
		rctx, cancel := context.WithCancel(ctx)
		timer := e.clock.AfterFunc(deadline.Sub(e.clock.Now()), cancel)
		renewed := e.sleep(rctx, e.retry) && e.try(rctx)
		timer.Stop()
		cancel()
		switch h := e.holder(); {
		case ctx.Err() != nil:
			return nil
		case renewed:
		case h != "" && h != e.identity:
			// The other took the Lease against the rules (a clock
			// running slow, a hand on the Lease): it leads now, and
			// waiting out the deadline would have two leaders.
			return fmt.Errorf("%w: the Lease is held by %s", errNotLeading, h)
		case !e.clock.Now().Before(deadline):
			return fmt.Errorf("%w: the Lease was not renewed within the renew deadline %v", errNotLeading, e.renewDeadline)
		}
	}
}

// sleep waits d or until ctx ends, and reports whether it waited d.
func (e *elector) sleep(ctx context.Context, d time.Duration) bool {
	t := e.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}

// try makes one attempt to acquire or renew the Lease and reports whether
// this candidate holds it now.
func (e *elector) try(ctx context.Context) bool {
	now := e.clock.Now()
	// The leader renews the Lease it last wrote without reading it first:
	// a renewal is one request. If someone else wrote it since, the
	// update conflicts and the Lease is read again.
	if e.lease != nil && e.holder() == e.identity && e.valid(now) {
		l := e.lease.DeepCopy()
		l.Spec = e.record(now, l.Spec.AcquireTime, ptr.Deref(l.Spec.LeaseTransitions, 0))
		got, err := e.api.Update(ctx, l)
		if err == nil {
			e.wrote(got, now)
			return true
		}
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			e.failed(ctx, "update", err)
			return false
		}
		e.log.V(1).Info("renewing the leader lease: read it again", "reason", err.Error())
	}

	cur, err := e.api.Get(ctx, e.name)
	if apierrors.IsNotFound(err) {
		l := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: e.name, Namespace: e.namespace},
			Spec:       e.record(now, nil, 0),
		}
		got, err := e.api.Create(ctx, l)
		if err != nil {
			e.failed(ctx, "create", err)
			return false
		}
		e.wrote(got, now)
		return true
	}
	if err != nil {
		e.failed(ctx, "get", err)
		return false
	}
	e.observe(cur)
	holder := e.holder()
	if holder != "" && holder != e.identity && e.valid(now) {
		return false
	}
	l := cur.DeepCopy()
	if holder == e.identity {
		l.Spec = e.record(now, cur.Spec.AcquireTime, ptr.Deref(cur.Spec.LeaseTransitions, 0))
	} else {
		l.Spec = e.record(now, nil, ptr.Deref(cur.Spec.LeaseTransitions, 0)+1)
	}
	got, err := e.api.Update(ctx, l)
	if err != nil {
		e.failed(ctx, "update", err)
		return false
	}
	e.wrote(got, now)
	return true
}

// release gives the Lease up, if this candidate still holds it: no holder
// and a lease duration of 1 s, so that a standby takes over at its next
// attempt, as client-go's elector releases it. It tries for at most the
// renew deadline, on a context of its own: the election's has ended.
func (e *elector) release() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := e.clock.AfterFunc(e.renewDeadline, cancel)
	defer timer.Stop()
	l := e.lease
	for e.holder() == e.identity {
		now := metav1.NewMicroTime(e.clock.Now())
		r := l.DeepCopy()
		r.Spec = coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(""),
			LeaseDurationSeconds: ptr.To(int32(1)),
			AcquireTime:          &now,
			RenewTime:            &now,
			LeaseTransitions:     ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0)),
		}
		got, err := e.api.Update(ctx, r)
		if err == nil {
			e.observe(got)
			e.log.V(1).Info("released the leader lease")
			return
		}
		e.failed(ctx, "update", err)
		if !apierrors.IsConflict(err) {
			return
		}
		// Written since: by a renewal of this candidate's whose answer
		// it did not wait for (the election ended meanwhile), or by someone
		// else. Read it and look again.
		if l, err = e.api.Get(ctx, e.name); err != nil {
			e.failed(ctx, "get", err)
			return
		}
		e.observe(l)
	}
}

// record is the spec this candidate writes at now as the holder.
func (e *elector) record(now time.Time, acquired *metav1.MicroTime, transitions int32) coordinationv1.LeaseSpec {
	t := metav1.NewMicroTime(now)
	if acquired == nil {
		acquired = &t
	}
	return coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(e.identity),
		LeaseDurationSeconds: ptr.To(int32(e.leaseDuration / time.Second)),
		AcquireTime:          acquired.DeepCopy(),
		RenewTime:            &t,
		LeaseTransitions:     ptr.To(transitions),
	}
}

// holder is the holder of the Lease as last seen; "" for none.
func (e *elector) holder() string {
	if e.lease == nil {
		return ""
	}
	return ptr.Deref(e.lease.Spec.HolderIdentity, "")
}

// valid reports whether the Lease as last seen is unexpired at now: its
// record changed less than its lease duration ago, on this clock.
func (e *elector) valid(now time.Time) bool {
	d := time.Duration(ptr.Deref(e.lease.Spec.LeaseDurationSeconds, 0)) * time.Second
	return e.changed.Add(d).After(now)
}

// wrote takes l, written by this candidate in an attempt begun at began,
// as the Lease.
func (e *elector) wrote(l *coordinationv1.Lease, began time.Time) {
	e.observe(l)
	e.renewed = began
}

// observe takes l, just read or written, as the Lease, noting the time if
// its record changed.
func (e *elector) observe(l *coordinationv1.Lease) {
	if e.lease == nil || !sameRecord(e.lease.Spec, l.Spec) {
		e.changed = e.clock.Now()
	}
	e.lease = l
	if h := e.holder(); h != e.reported {
		e.reported = h
		e.log.V(1).Info("the leader lease changed hands", "holder", h)
	}
}

// failed handles a failed call on the Lease: a refusal fails the manager
// (client-go's elector would retry it forever, and a replica without the
// RBAC for its Lease would stand by for good, healthy and ready, its
// controllers never started); a conflict is a lost race, a failed
// attempt and nothing more; anything else is logged, unless ctx ended.
func (e *elector) failed(ctx context.Context, verb string, err error) {
	switch {
	case apierrors.IsForbidden(err):
		e.refused(fmt.Errorf("manager: leader election: the API server refuses to %s the Lease %s/%s: grant the operator's service account get, create and update on leases (apiGroups: coordination.k8s.io) in namespace %s: %w",
			verb, e.namespace, e.name, e.namespace, err))
	case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
		e.log.V(1).Info("lost a race for the leader lease", "verb", verb, "reason", err.Error())
	case ctx.Err() != nil:
	default:
		e.log.Error(err, "leader election", "verb", verb)
	}
}

// sameRecord reports whether a and b are the same election record. A
// change in anything else, the Lease's labels say, is not a renewal.
func sameRecord(a, b coordinationv1.LeaseSpec) bool {
	return ptr.Equal(a.HolderIdentity, b.HolderIdentity) &&
		ptr.Equal(a.LeaseDurationSeconds, b.LeaseDurationSeconds) &&
		ptr.Equal(a.LeaseTransitions, b.LeaseTransitions) &&
		sameTime(a.AcquireTime, b.AcquireTime) && sameTime(a.RenewTime, b.RenewTime) &&
		ptr.Equal(a.Strategy, b.Strategy) && ptr.Equal(a.PreferredHolder, b.PreferredHolder)
}

// sameTime reports whether a and b are the same instant, or both unset.
func sameTime(a, b *metav1.MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}
