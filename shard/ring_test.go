package shard

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/go-logr/logr/testr"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/testkit"
)

// Short leases, so that expiry takes seconds.
const (
	testLease = 3 * time.Second
	testRenew = 2 * time.Second
	testRetry = 250 * time.Millisecond
)

func testOptions(ns string, opts ...Option) []Option {
	return append([]Option{WithNamespace(ns), WithLeaseDuration(testLease), WithRenewDeadline(testRenew), WithRetryPeriod(testRetry)}, opts...)
}

// running is a started Ring and the means to stop it.
type running struct {
	*Ring
	cancel context.CancelFunc
	done   chan struct{}
}

// stop ends Start's context and waits for Start to return.
func (r *running) stop() {
	r.cancel()
	<-r.done
}

// newCluster returns a Cluster for the API server at cfg.
func newCluster(t testing.TB, cfg *rest.Config) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testCluster returns a Cluster of the test binary's control plane; like
// testkit.Env it skips the test under go test -short.
func testCluster(t testing.TB) *cluster.Cluster {
	t.Helper()
	return newCluster(t, testkit.Env(t).Config)
}

// nowhere returns a Cluster of an address no API server answers, for
// rings that are never started: making one sends no request.
func nowhere(t testing.TB) *cluster.Cluster {
	t.Helper()
	return newCluster(t, &rest.Config{Host: "http://127.0.0.1:1"})
}

func startRing(t *testing.T, c *cluster.Cluster, ns, id string, opts ...Option) *running {
	t.Helper()
	return startRingWith(t, c, ns, id, nil, opts...)
}

// startRingWith is startRing that calls before, if set, before Start.
func startRingWith(t *testing.T, c *cluster.Cluster, ns, id string, before func(*Ring), opts ...Option) *running {
	t.Helper()
	r, err := New(c, "ring", id, testOptions(ns, append([]Option{WithLogger(testr.New(t).WithName(id))}, opts...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{Ring: r, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		if err := r.Start(ctx); err != nil {
			t.Errorf("ring %s: Start: %v", id, err)
		}
	}()
	t.Cleanup(run.stop)
	return run
}

// probes are hashes spread over the ring, for checking who may start.
var probes = func() []uint64 {
	var hs []uint64
	for i := range 512 {
		hs = append(hs, Hash(fmt.Sprintf("probe-%d", i)))
	}
	return hs
}()

// settled reports, as an error, the first way the rings are not yet
// settled on members: every ring sees them, and every probe may be
// started by exactly its owner.
func settled(rings []*running, members ...string) func() error {
	return func() error {
		var a Assignment
		for _, r := range rings {
			if got := r.Members(); !slices.Equal(got, members) {
				return fmt.Errorf("ring %s sees members %v", r.Identity(), got)
			}
			a = r.Assignment()
		}
		for _, h := range probes {
			var may []string
			for _, r := range rings {
				if r.MayStart(h) {
					may = append(may, r.Identity())
				}
			}
			if len(may) != 1 || may[0] != a.Owner(h) {
				return fmt.Errorf("hash %#x: %v may start it, owner %s", h, may, a.Owner(h))
			}
		}
		return nil
	}
}

// detector plays reconciles on every ring at once, each holding a hash
// for a moment, and records any hash two rings held at the same time.
// Several workers of one ring may hold a hash together: a controller's
// queue hands a key to one worker at a time, which the ring need not.
type detector struct {
	mu      sync.Mutex
	holding map[uint64]map[string]int
	overlap []string
	done    atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newDetector() *detector {
	return &detector{holding: map[uint64]map[string]int{}, stop: make(chan struct{})}
}

// work plays reconciles on r, four at a time, until the detector stops.
func (d *detector) work(r *running) {
	for range 4 {
		d.wg.Go(func() {
			for {
				select {
				case <-d.stop:
					return
				default:
				}
				h := probes[rand.IntN(len(probes))]
				end, ok := r.Begin(h)
				if !ok {
					time.Sleep(5 * time.Millisecond) // a controller would move on to another key
					continue
				}
				d.mu.Lock()
				if d.holding[h] == nil {
					d.holding[h] = map[string]int{}
				}
				for other := range d.holding[h] {
					if other != r.Identity() {
						d.overlap = append(d.overlap, fmt.Sprintf("%#x by %s and %s", h, other, r.Identity()))
					}
				}
				d.holding[h][r.Identity()]++ // one ring's workers may share a hash: its queue would not
				d.mu.Unlock()
				time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond) // the reconcile
				d.mu.Lock()
				if d.holding[h][r.Identity()]--; d.holding[h][r.Identity()] == 0 {
					delete(d.holding[h], r.Identity())
				}
				d.mu.Unlock()
				d.done.Add(1)
				end()
			}
		})
	}
}

func (d *detector) finish(t *testing.T) {
	t.Helper()
	close(d.stop)
	d.wg.Wait()
	if len(d.overlap) > 0 {
		t.Fatalf("hashes reconciled by two rings at once: %v", d.overlap)
	}
	if d.done.Load() == 0 {
		t.Fatal("the detector played no reconcile")
	}
	t.Logf("%d reconciles played, none overlapping", d.done.Load())
}

// Three rings agree on the assignment; a fourth joins and takes a share;
// it leaves gracefully and its ranges move at once; one is killed and its
// ranges move once its Lease expires. Throughout, reconciles played on
// every ring never hold one hash twice.
func TestRingMembershipAndHandover(t *testing.T) {
	ns := testkit.Namespace(t, "shard-")
	cs := testkit.Clientset(t) // for the test's own reads
	cl := testCluster(t)
	det := newDetector()
	a, b := startRing(t, cl, ns, "a"), startRing(t, cl, ns, "b")
	c := startRing(t, cl, ns, "c", WithReleaseOnCancel(false))
	rings := []*running{a, b, c}
	for _, r := range rings {
		det.work(r)
	}
	testkit.Eventually(t, 20*time.Second, "three rings settle", settled(rings, "a", "b", "c"))
	want := a.Assignment()
	for _, r := range rings {
		if got := r.Owned(); !slices.Equal(got, want.Ranges(r.Identity())) {
			t.Fatalf("ring %s owns %v: want its ranges of the assignment", r.Identity(), got)
		}
		f := Fraction(r.Owned())
		t.Logf("ring %s owns %.3f of the ring", r.Identity(), f)
		if f < 0.2 || f > 0.47 {
			t.Fatalf("ring %s owns %.3f of the ring: want about a third", r.Identity(), f)
		}
	}

	d := startRing(t, cl, ns, "d")
	det.work(d)
	testkit.Eventually(t, 20*time.Second, "four rings settle", settled(append(rings, d), "a", "b", "c", "d"))
	t.Logf("d joined and owns %.3f of the ring", Fraction(d.Owned()))

	left := time.Now()
	d.stop()
	testkit.Eventually(t, testLease, "d's ranges move at once after it left", settled(rings, "a", "b", "c"))
	t.Logf("d's ranges moved %v after it left", time.Since(left).Round(time.Millisecond))

	lost := c.Assignment().Ranges("c")
	killed := time.Now()
	c.stop() // without releasing its Lease
	for _, r := range []*running{a, b} {
		for _, rg := range lost {
			if r.MayStart(rg.Start) {
				t.Fatalf("ring %s may start %#x of killed c's ranges before c's Lease expired", r.Identity(), rg.Start)
			}
		}
	}
	testkit.Eventually(t, testLease+10*time.Second, "c's ranges move after its Lease expired", settled([]*running{a, b}, "a", "b"))
	// c renewed last at most a retry period (and a write) before it was
	// killed, and its Lease expires a lease duration after that.
	if took := time.Since(killed); took < testLease-2*testRetry {
		t.Fatalf("c's ranges moved %v after it was killed: before its Lease (%v) expired", took, testLease)
	} else {
		t.Logf("c's ranges moved %v after it was killed (lease %v)", took.Round(time.Millisecond), testLease)
	}
	if _, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), "ring-c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("killed c's Lease: %v: want it deleted as expired", err)
	}
	det.finish(t)
}

// partition is a transport that fails every request while cut, as a
// network partition between one replica and the API server would.
type partition struct {
	rt  http.RoundTripper
	cut atomic.Bool
}

func (p *partition) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.cut.Load() {
		return nil, errors.New("partitioned")
	}
	return p.rt.RoundTrip(req)
}

// A replica cut off from the API server stops starting reconciles within
// its renew deadline, before its Lease can expire; the others take its
// ranges after the expiry; once the partition heals it joins again.
func TestRingPartitionedReplicaStopsFirst(t *testing.T) {
	ns := testkit.Namespace(t, "shard-")
	cl := testCluster(t)
	p := &partition{}
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { p.rt = rt; return p }
	pcl := newCluster(t, cfg)
	det := newDetector()
	a, b, c := startRing(t, cl, ns, "a"), startRing(t, cl, ns, "b"), startRing(t, pcl, ns, "c")
	for _, r := range []*running{a, b, c} {
		det.work(r)
	}
	testkit.Eventually(t, 20*time.Second, "three rings settle", settled([]*running{a, b, c}, "a", "b", "c"))

	p.cut.Store(true)
	cut := time.Now()
	testkit.Eventually(t, testRenew+time.Second, "c stops starting reconciles", func() bool {
		for _, h := range probes {
			if c.MayStart(h) {
				return false
			}
		}
		return c.Owned() == nil
	})
	if took := time.Since(cut); took >= testLease {
		t.Fatalf("c stopped %v after the cut: not before its Lease could expire", took)
	}
	testkit.Eventually(t, testLease+10*time.Second, "a and b take c's ranges", settled([]*running{a, b}, "a", "b"))

	p.cut.Store(false)
	testkit.Eventually(t, 20*time.Second, "c joins again", settled([]*running{a, b, c}, "a", "b", "c"))
	det.finish(t)
}

func TestNewErrors(t *testing.T) {
	cl := nowhere(t)
	for _, tc := range []struct {
		ring, id string
		opts     []Option
		want     string
	}{
		{"", "a", nil, "both are required"},
		{"ring", "A_B", nil, `"ring-A_B"`},
		{"ring", "a,b", nil, "comma"},
		{"ring", "a", []Option{WithLeaseDuration(1500 * time.Millisecond)}, "WithLeaseDuration(1.5s)"},
		{"ring", "a", []Option{WithRenewDeadline(15 * time.Second)}, "WithRenewDeadline(15s)"},
		{"ring", "a", []Option{WithRetryPeriod(0)}, "WithRetryPeriod(0s)"},
		{"ring", "a", []Option{WithVirtualNodes(0)}, "WithVirtualNodes(0)"},
		{"ring", "a", []Option{WithNamespace("")}, "WithNamespace"},
	} {
		if _, err := New(cl, tc.ring, tc.id, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q): %v: want an error saying %s", tc.ring, tc.id, err, tc.want)
		}
	}
	if _, err := New(nil, "ring", "a"); err == nil || !strings.Contains(err.Error(), `ring "ring": nil cluster`) {
		t.Errorf("New with a nil cluster: %v: want an error naming the ring", err)
	}
}

// Before Start a ring owns nothing and may start nothing; Start twice fails.
func TestRingBeforeAndAfterStart(t *testing.T) {
	r, err := New(nowhere(t), "ring", "a") // never called
	if err != nil {
		t.Fatal(err)
	}
	if r.Owned() != nil || r.MayStart(0) || len(r.Members()) != 0 {
		t.Fatal("an unstarted ring owns something")
	}
	if _, err := r.Selector(UID); !errors.Is(err, ErrNoRanges) {
		t.Fatalf("an unstarted ring's selector: %v: want ErrNoRanges", err)
	}

	ns := testkit.Namespace(t, "shard-")
	a := startRing(t, testCluster(t), ns, "a")
	testkit.Eventually(t, 10*time.Second, "a alone owns the whole ring", func() error {
		sel, err := a.Selector(UID)
		if want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"; err != nil || sel != want {
			return fmt.Errorf("selector %q, %v", sel, err)
		}
		return nil
	})
	if err := a.Start(context.Background()); err == nil {
		t.Fatal("a second Start: want an error")
	}
	ch := a.Changed()
	a.stop()
	select {
	case <-ch:
	default:
		t.Fatal("stopping the ring did not close Changed")
	}
	if a.Owned() != nil || a.MayStart(probes[0]) {
		t.Fatal("a stopped ring owns something")
	}
	if _, err := testkit.Clientset(t).CoordinationV1().Leases(ns).Get(context.Background(), "ring-a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the Lease of a ring that left: %v: want it deleted", err)
	}
}
