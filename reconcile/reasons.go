package reconcile

import (
	"context"
	"math/bits"
	"strconv"
	"strings"
)

// Reasons is the set of reasons a request was queued, one bit each. The
// reasons of every event and requeue that merged into one queued request
// are merged, so a reconcile learns all that happened since the last one
// for its request (ReasonsFrom). A set is a plain integer: test it with
// Has and Any, or with &.
type Reasons uint64

// The reasons a controller records. A Primary reason is a change to the
// request's own object (handler.EnqueueObject), an Owned one a change to an
// object it controls (handler.EnqueueOwner), a Watched one a change to any
// other object a handler mapped to the request. InitialList and Resync
// come with the Created or Updated reason of the event they qualify.
const (
	PrimaryCreated Reasons = 1 << iota // the object was created or first seen
	PrimaryUpdated                     // the object changed
	PrimaryDeleted                     // the object was deleted
	OwnedCreated                       // an object it controls was created or first seen
	OwnedUpdated                       // an object it controls changed
	OwnedDeleted                       // an object it controls was deleted
	WatchedCreated                     // another watched object was created or first seen
	WatchedUpdated                     // another watched object changed
	WatchedDeleted                     // another watched object was deleted
	External                           // a Generic event, or a source other than an informer
	InitialList                        // the event came from the informer's initial list
	Resync                             // the event is a resync or relist that changed nothing
	ErrorRequeue                       // the last reconcile failed, and this is the retry
	RequeueAfter                       // the last reconcile returned Result.RequeueAfter

	// Primary, Owned and Watched are the masks of the reasons of each
	// role, for Any: r.Any(reconcile.Owned) reports a change to an
	// owned object of any kind.
	Primary = PrimaryCreated | PrimaryUpdated | PrimaryDeleted
	Owned   = OwnedCreated | OwnedUpdated | OwnedDeleted
	Watched = WatchedCreated | WatchedUpdated | WatchedDeleted
)

// reasonNames are the single reasons' names, in bit order: what String
// prints and the reason label of steady_reconcile_reasons_total.
var reasonNames = [...]string{
	"primary_created", "primary_updated", "primary_deleted",
	"owned_created", "owned_updated", "owned_deleted",
	"watched_created", "watched_updated", "watched_deleted",
	"external", "initial_list", "resync", "error_requeue", "requeue_after",
}

// NumReasons is the number of reasons defined, the bound on the values of
// a reason label.
const NumReasons = len(reasonNames)

// Has reports whether r holds every reason in o.
func (r Reasons) Has(o Reasons) bool { return r&o == o }

// Any reports whether r holds at least one reason of o.
func (r Reasons) Any(o Reasons) bool { return r&o != 0 }

// String names the reasons in r, in bit order, joined by "," (e.g.
// "primary_created,initial_list"); "none" for the empty set. A single
// reason's name is a constant, so String of one reason does not allocate.
func (r Reasons) String() string {
	if r == 0 {
		return "none"
	}
	if r&(r-1) == 0 {
		return reasonName(bits.TrailingZeros64(uint64(r)))
	}
	var b strings.Builder
	for rest := r; rest != 0; rest &= rest - 1 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(reasonName(bits.TrailingZeros64(uint64(rest))))
	}
	return b.String()
}

func reasonName(bit int) string {
	if bit < len(reasonNames) {
		return reasonNames[bit]
	}
	return "reason_" + strconv.Itoa(bit)
}

// reasonsKey is the context key of the running reconcile's reasons.
type reasonsKey struct{}

// ContextWithReasons returns a copy of ctx that carries r as the reasons
// of the reconcile running with it. Package controller sets it on every
// reconcile's context whose request has reasons.
func ContextWithReasons(ctx context.Context, r Reasons) context.Context {
	return context.WithValue(ctx, reasonsKey{}, r)
}

// ReasonsFrom returns the reasons the reconcile running with ctx was
// queued for: every event and requeue merged into its request since its
// last reconcile. It is empty outside of a reconcile and when the
// controller does not record reasons (WithPriorityQueue(false)).
func ReasonsFrom(ctx context.Context) Reasons {
	r, _ := ctx.Value(reasonsKey{}).(Reasons)
	return r
}
