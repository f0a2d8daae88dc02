package manager

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/internal/leases"
	"github.com/steadyctl/steady/internal/testkit"
)

// leadership is who leads, as the electors' callbacks and the test's
// cancellations say; it records any moment two lead at once.
type leadership struct {
	mu       sync.Mutex
	leader   string    // "" for none
	since    time.Time // when leader began
	terms    []string  // the leaders, in order
	overlaps []string  // "a while b" for each a that began while b led
}

func (l *leadership) begin(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.leader != "" {
		l.overlaps = append(l.overlaps, id+" while "+l.leader)
	}
	l.leader, l.since = id, time.Now()
	l.terms = append(l.terms, id)
}

// end ends id's term, if it leads: called before its elector is
// cancelled, which is when it stops leading as far as its user knows.
func (l *leadership) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.leader == id {
		l.leader = ""
	}
}

func (l *leadership) current() (string, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leader, l.since
}

// countingLock is a client-go Lease lock that counts its reads: a
// candidate's attempts.
type countingLock struct {
	resourcelock.Interface
	gets atomic.Int32
}

func (l *countingLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	l.gets.Add(1)
	return l.Interface.Get(ctx)
}

// countingAPI is steady's Lease client, counting its reads.
type countingAPI struct {
	leaseAPI
	gets atomic.Int32
}

func (c *countingAPI) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	c.gets.Add(1)
	return c.leaseAPI.Get(ctx, name)
}

// candidate is a running elector of either kind.
type candidate struct {
	id       string
	attempts func() int32 // its reads of the Lease so far
	stop     func() error // ends its term, if it leads, cancels it and waits
}

// Interop timings: the lease duration is long, so that a handover within
// a few retry periods can only be the release's doing.
const (
	interopLease = 15 * time.Second
	interopRenew = 10 * time.Second
	interopRetry = 500 * time.Millisecond
	// interopHandover is the most a handover may take: a candidate's
	// longest wait between attempts, 2.2 retry periods, and time for
	// the requests of a busy test machine.
	interopHandover = 3 * time.Second
)

// clientGoCandidate runs client-go's elector for Lease ns/lock as id.
func clientGoCandidate(t *testing.T, ns, id string, lead *leadership) *candidate {
	t.Helper()
	lock := &countingLock{Interface: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: "lock", Namespace: ns},
		Client:     testkit.Clientset(t).CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, LeaseDuration: interopLease, RenewDeadline: interopRenew, RetryPeriod: interopRetry,
		ReleaseOnCancel: true, Name: "lock",
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { lead.begin(id) },
			OnStoppedLeading: func() { lead.end(id) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); le.Run(ctx) }()
	stop := sync.OnceValue(func() error { lead.end(id); cancel(); <-done; return nil })
	t.Cleanup(func() { _ = stop() })
	return &candidate{id: id, attempts: lock.gets.Load, stop: stop}
}

// steadyCandidate runs steady's elector for Lease ns/lock as id.
func steadyCandidate(t *testing.T, ns, id string, lead *leadership) *candidate {
	t.Helper()
	cfg := testkit.Env(t).Config
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := leases.New(cfg, hc, ns)
	if err != nil {
		t.Fatal(err)
	}
	api := &countingAPI{leaseAPI: lc}
	e, err := newElector(api, ns, "lock", id, interopLease, interopRenew, interopRetry)
	if err != nil {
		t.Fatal(err)
	}
	e.log = testr.New(t)
	e.refused = func(err error) { t.Errorf("refused: %v", err) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.run(ctx, func(leading context.Context) {
			lead.begin(id)
			context.AfterFunc(leading, func() { lead.end(id) })
		})
	}()
	stop := sync.OnceValue(func() error { lead.end(id); cancel(); return <-done })
	t.Cleanup(func() { _ = stop() })
	return &candidate{id: id, attempts: api.gets.Load, stop: stop}
}

// handOver stops the leader from and checks that standby to takes over
// within interopHandover: the leader released the Lease.
func handOver(t *testing.T, lead *leadership, from, to *candidate) {
	t.Helper()
	// The standby has tried, and failed, a few times meanwhile.
	before := to.attempts()
	testkit.Eventually(t, 20*time.Second, to.id+" trying for the Lease", func() bool { return to.attempts() >= before+3 })
	if l, _ := lead.current(); l != from.id {
		t.Fatalf("%s leads: want %s, with %s standing by", l, from.id, to.id)
	}
	stopped := time.Now()
	if err := from.stop(); err != nil {
		t.Fatalf("%s: %v", from.id, err)
	}
	testkit.Eventually(t, 2*interopLease, to.id+" leading", func() bool { l, _ := lead.current(); return l == to.id })
	_, since := lead.current()
	took := since.Sub(stopped)
	t.Logf("%s took over from %s in %v", to.id, from.id, took)
	if took > interopHandover {
		t.Fatalf("%s took over %v after %s left: want at most %v (the lease duration is %v)", to.id, took, from.id, interopHandover, interopLease)
	}
}

// wantHolder fails the test unless the Lease names holder after
// transitions changes of hands.
func wantHolder(t *testing.T, ns, holder string, transitions int32) {
	t.Helper()
	l, err := testkit.Clientset(t).CoordinationV1().Leases(ns).Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h, n := ptr.Deref(l.Spec.HolderIdentity, ""), ptr.Deref(l.Spec.LeaseTransitions, -1); h != holder || n != transitions ||
		ptr.Deref(l.Spec.LeaseDurationSeconds, 0) != int32(interopLease/time.Second) {
		t.Fatalf("Lease held by %q after %d transitions, for %v s: want %q after %d, for %v", h, n, ptr.Deref(l.Spec.LeaseDurationSeconds, 0), holder, transitions, interopLease)
	}
}

// client-go's elector and steady's campaign for one Lease, as replicas of
// an operator migrating from controller-runtime do during a rolling
// update: one leads at a time, each stands by while the other leads, and
// each takes over within a few retry periods when the other leaves.
func TestElectorSharesTheLeaseWithClientGo(t *testing.T) {
	ns := testkit.Namespace(t, "elect-")
	lead := &leadership{}

	cg1 := clientGoCandidate(t, ns, "client-go-1", lead)
	testkit.Eventually(t, 20*time.Second, "client-go-1 leading", func() bool { l, _ := lead.current(); return l == "client-go-1" })
	st := steadyCandidate(t, ns, "steady", lead)
	handOver(t, lead, cg1, st)
	wantHolder(t, ns, "steady", 1)

	cg2 := clientGoCandidate(t, ns, "client-go-2", lead)
	handOver(t, lead, st, cg2)
	wantHolder(t, ns, "client-go-2", 2)
	if err := cg2.stop(); err != nil {
		t.Fatal(err)
	}

	lead.mu.Lock()
	defer lead.mu.Unlock()
	if len(lead.overlaps) > 0 {
		t.Fatalf("two leaders at once: %v", lead.overlaps)
	}
	if want := []string{"client-go-1", "steady", "client-go-2"}; !slices.Equal(lead.terms, want) {
		t.Fatalf("terms %v: want %v", lead.terms, want)
	}
}
