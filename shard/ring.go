package shard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/leases"
)

// Labels and annotations on a member's Lease.
const (
	// RingLabel names the ring a Lease is a member of.
	RingLabel = "shard.steady.dev/ring"
	// DrainedForAnnotation is the member's acknowledgement: the member set
	// (identities joined by commas) whose assignment bounds every
	// reconcile the member has in progress or may start; empty, nothing.
	DrainedForAnnotation = "shard.steady.dev/drained-for"
	// VirtualNodesAnnotation is the member's number of virtual nodes, with
	// which the others read its acknowledgement.
	VirtualNodesAnnotation = "shard.steady.dev/virtual-nodes"
)

// leaseAPI is what a Ring asks of the API server: the Leases of its
// namespace (a leases.Client). Errors from the API server are its status
// errors, possibly wrapped, so apierrors.IsNotFound and the like read them.
type leaseAPI interface {
	Get(ctx context.Context, name string) (*coordinationv1.Lease, error)
	Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Delete(ctx context.Context, name string, pre metav1.Preconditions) error
	List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Ring is one replica's membership of a ring: it holds the replica's
// Lease, watches the other members' Leases, computes the Assignment of
// the hash space among the live members, and decides, with the handover
// protocol of the package documentation, which hashes this replica may
// start reconciling. Create it with New and run it with Start. Its
// methods are safe for concurrent use.
type Ring struct {
	api       leaseAPI // the Leases of the ring's namespace
	name      string
	identity  string
	leaseName string
	o         *options

	kick chan struct{} // wakes the keeper: an acknowledgement may be due

	mu         sync.Mutex
	leases     map[string]*memberLease // by identity, this replica's included
	assignment Assignment              // among the live members
	own        ownLease
	inflight   map[uint64]int // reconciles in progress, by hash
	state      string         // fingerprint of what Changed reports
	changed    chan struct{}  // closed at the next change
	running    bool           // Start has begun and not yet returned
	leaving    bool           // Start's context has ended: start nothing
	metrics    Metrics        // nil: none
	changeSeen time.Time      // when the members changed, until acknowledged
}

// New returns the membership of replica identity in ring, which it joins
// once started, holding its Lease on the API server of c (a manager's
// Cluster, say). ring and identity name the replica's Lease,
// "<ring>-<identity>", so together they must make a valid object name;
// identity must be unique among the ring's live replicas (a pod name is).
// The ring reads and writes Leases with a client of its own made from c's
// config, which speaks protobuf unless the config names a content type.
// Errors name the invalid argument or option.
func New(c *cluster.Cluster, ring, identity string, opts ...Option) (*Ring, error) {
	if c == nil {
		return nil, fmt.Errorf("shard: ring %q: nil cluster", ring)
	}
	if ring == "" || identity == "" {
		return nil, fmt.Errorf("shard: ring %q, identity %q: both are required", ring, identity)
	}
	if strings.Contains(identity, ",") {
		return nil, fmt.Errorf("shard: identity %q: must not contain a comma", identity)
	}
	leaseName := ring + "-" + identity
	if errs := validation.IsDNS1123Subdomain(leaseName); len(errs) > 0 {
		return nil, fmt.Errorf("shard: ring %q, identity %q: Lease name %q: %s", ring, identity, leaseName, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(ring); len(errs) > 0 {
		return nil, fmt.Errorf("shard: ring %q: not a label value: %s", ring, strings.Join(errs, "; "))
	}
	o, err := newOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("shard: ring %q: %w", ring, err)
	}
	api, err := leases.New(c.Config(), c.HTTPClient(), o.namespace)
	if err != nil {
		return nil, fmt.Errorf("shard: ring %q: %w", ring, err)
	}
	a, _ := NewAssignment(nil, o.virtualNodes)
	r := &Ring{
		api: api, name: ring, identity: identity, leaseName: leaseName, o: o,
		kick:       make(chan struct{}, 1),
		leases:     map[string]*memberLease{},
		assignment: a,
		inflight:   map[uint64]int{},
		changed:    make(chan struct{}),
	}
	r.o.log = r.o.log.WithValues("ring", ring, "identity", identity)
	return r, nil
}

// Name is the ring's name.
func (r *Ring) Name() string { return r.name }

// Identity is this replica's identity in the ring.
func (r *Ring) Identity() string { return r.identity }

// Members are the identities of the ring's live members as this replica
// sees them, sorted: those whose Leases exist and have not expired.
func (r *Ring) Members() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.assignment.Members()
}

// Assignment is the assignment of the hash space among Members.
func (r *Ring) Assignment() Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.assignment
}

// Owned are the ranges the Assignment gives this replica while it is a
// healthy member (nil otherwise): what its informers should list and
// watch. Owning a hash is necessary for starting a reconcile there, not
// sufficient: see MayStart.
func (r *Ring) Owned() []Range {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.healthyLocked(r.o.clock.Now()) {
		return nil
	}
	return r.assignment.Ranges(r.identity)
}

// Selector is the API server's ShardSelector for Owned, sharding by
// field; ErrNoRanges when this replica owns nothing.
func (r *Ring) Selector(field Field) (string, error) {
	sel, err := Selector(field, r.Owned())
	if err != nil {
		return "", fmt.Errorf("shard: ring %q, identity %q: %w", r.name, r.identity, err)
	}
	return sel, nil
}

// Changed returns a channel closed at the next change of what this
// replica owns or may start; it may also be closed when nothing a caller
// sees changed. Take the channel before reading the state it guards:
//
//	for {
//		ch := ring.Changed()
//		apply(ring.Owned())
//		select {
//		case <-ch:
//		case <-ctx.Done():
//			return
//		}
//	}
func (r *Ring) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// MayStart reports whether this replica may start reconciling an object
// whose hash is hash now: it owns the hash, has acknowledged that, and no
// other member's acknowledgement still covers it. A controller asks
// before taking a key off its queue (and leaves keys it may not start to
// the replica that may); Begin asks it and records the start atomically.
func (r *Ring) MayStart(hash uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mayStartLocked(hash, r.o.clock.Now())
}

// Begin records the start of a reconcile of hash if MayStart allows it,
// and returns the func that records its end, to be called exactly once
// (more calls do nothing). While a reconcile is in progress this replica
// does not acknowledge an assignment that takes its hash away, so its new
// owner does not start on it.
func (r *Ring) Begin(hash uint64) (done func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.mayStartLocked(hash, r.o.clock.Now()) {
		return nil, false
	}
	r.inflight[hash]++
	var once sync.Once
	return func() { once.Do(func() { r.end(hash) }) }, true
}

func (r *Ring) end(hash uint64) {
	r.mu.Lock()
	if r.inflight[hash]--; r.inflight[hash] <= 0 {
		delete(r.inflight, hash)
	}
	r.mu.Unlock()
	r.poke()
}

// poke wakes the keeper, which acknowledges a drained assignment.
func (r *Ring) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// mayStartLocked is the start rule of the handover protocol.
func (r *Ring) mayStartLocked(hash uint64, now time.Time) bool {
	if !r.healthyLocked(now) || !r.own.caughtUp() {
		return false
	}
	if !r.assignment.Owns(r.identity, hash) || !r.own.owns(r.identity, hash) {
		return false
	}
	for id, l := range r.leases {
		if id != r.identity && l.ack.Owns(id, hash) {
			return false
		}
	}
	return true
}

// healthyLocked reports whether this replica is a running member that
// renewed its Lease within the renew deadline.
func (r *Ring) healthyLocked(now time.Time) bool {
	return r.running && !r.leaving && r.own.exists && now.Sub(r.own.renewed) < r.o.renewDeadline
}

// drainedLocked reports whether every reconcile in progress is for a hash
// the current assignment gives this replica.
func (r *Ring) drainedLocked() bool {
	for h := range r.inflight {
		if !r.assignment.Owns(r.identity, h) {
			return false
		}
	}
	return true
}

// notifyLocked closes the Changed channel if what it reports changed.
func (r *Ring) notifyLocked(now time.Time) {
	var b strings.Builder
	fmt.Fprintf(&b, "%t %t %t|%s|%s", r.healthyLocked(now), r.own.caughtUp(), r.leaving,
		strings.Join(r.assignment.members, ","), strings.Join(r.own.ack.members, ","))
	ids := make([]string, 0, len(r.leases))
	for id := range r.leases {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "|%s:%s", id, strings.Join(r.leases[id].ack.members, ","))
	}
	if s := b.String(); s != r.state {
		r.state = s
		close(r.changed)
		r.changed = make(chan struct{})
	}
}
