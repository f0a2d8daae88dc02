package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

func TestWithShardingErrors(t *testing.T) {
	c, err := cluster.New(&rest.Config{Host: "http://127.0.0.1:1"}) // makes no request
	if err != nil {
		t.Fatal(err)
	}
	ring, err := shard.New(c, "ring", "a") // never started
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		opt  Option
		want string
	}{
		"nil ring": {WithSharding(nil, ShardByNamespace), "WithSharding: nil ring"},
		"nil hash": {WithSharding(ring, nil), `WithSharding(ring "ring"): nil hash func`},
	} {
		_, err := New("c", reconcile.Func(nopReconcile), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
	plain, _ := New("plain", reconcile.Func(nopReconcile))
	sharded, err := New("sharded", reconcile.Func(nopReconcile), WithSharding(ring, ShardByNamespace))
	if err != nil {
		t.Fatal(err)
	}
	if !plain.NeedLeaderElection() || sharded.NeedLeaderElection() {
		t.Errorf("NeedLeaderElection: plain %t, sharded %t; want true, false", plain.NeedLeaderElection(), sharded.NeedLeaderElection())
	}
}

func nopReconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{}, nil
}

// startSharded starts a controller sharded over ring by hashOf, fed reqs
// once by a synced source, and stops it at the test's end.
func startSharded(t *testing.T, r reconcile.Reconciler, ring *shard.Ring, hashOf ShardHashFunc, reqs ...reconcile.Request) {
	t.Helper()
	c, err := New("sharded", r, WithSharding(ring, hashOf))
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{reqs: reqs}
	src.synced.Store(true)
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = c.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })
}

// startTestRing starts replica id of ring "ring" in namespace ns, with
// short lease timings, and returns it with the func that stops it
// (releasing its Lease), also called at the test's end.
func startTestRing(t *testing.T, ns, id string) (*shard.Ring, func()) {
	t.Helper()
	c, err := cluster.New(testkit.Env(t).Config)
	if err != nil {
		t.Fatal(err)
	}
	r, err := shard.New(c, "ring", id, shard.WithNamespace(ns), shard.WithLeaseDuration(3*time.Second),
		shard.WithRenewDeadline(2*time.Second), shard.WithRetryPeriod(250*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Start(ctx) }()
	stop := sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stop)
	return r, stop
}

// hashOwnedBy returns a hash that the assignment among members gives to
// member.
func hashOwnedBy(t *testing.T, members []string, member string) uint64 {
	t.Helper()
	a, err := shard.NewAssignment(members, shard.DefaultVirtualNodes)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if h := shard.Hash(fmt.Sprint("key-", i)); a.Owner(h) == member {
			return h
		}
	}
}

// A sharded controller on replica b, which has just joined a ring where
// a holds a reconcile of hash hb in progress: a request of hb, which b
// owns but may not start until a has finished and acknowledged, is
// parked and reconciled with its reasons once a is done; a request a
// owns and one whose object b does not know are dropped.
func TestShardedControllerParksAndDrops(t *testing.T) {
	ns := testkit.Namespace(t, "ctlshard")
	hb := hashOwnedBy(t, []string{"a", "b"}, "b")
	ha := hashOwnedBy(t, []string{"a", "b"}, "a")
	a, _ := startTestRing(t, ns, "a")
	testkit.Eventually(t, 30*time.Second, "a may start hb, alone", func() bool { return a.MayStart(hb) })
	endA, ok := a.Begin(hb)
	if !ok {
		t.Fatal("a may not begin hb")
	}
	b, _ := startTestRing(t, ns, "b")
	testkit.Eventually(t, 30*time.Second, "b owns hb", func() bool { return b.Owns(hb) })

	hashes := map[string]uint64{"parked": hb, "dropped": ha}
	var looked atomic.Int32
	hashOf := func(r reconcile.Request) (uint64, bool) {
		looked.Add(1)
		h, ok := hashes[r.Name]
		return h, ok
	}
	var mu sync.Mutex
	var aDone bool
	var calls []string
	rec := reconcile.Func(func(ctx context.Context, r reconcile.Request) (reconcile.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		if !aDone {
			t.Errorf("%s reconciled on b while a still reconciles its hash", r.Name)
		}
		calls = append(calls, r.Name+" "+reconcile.ReasonsFrom(ctx).String())
		return reconcile.Result{}, nil
	})
	startSharded(t, rec, b, hashOf, req("parked"), req("dropped"), req("unknown"))

	testkit.Eventually(t, 30*time.Second, "every request taken", func() bool { return looked.Load() >= 3 })
	if b.MayStart(hb) {
		t.Fatal("b may start hb while a reconciles it")
	}
	mu.Lock()
	aDone = true
	mu.Unlock()
	endA()
	testkit.Eventually(t, 30*time.Second, "the parked request reconciled once a is done", func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(calls) == 0 {
			return fmt.Errorf("not reconciled (b may start hb: %t)", b.MayStart(hb))
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"parked " + reconcile.External.String()}; strings.Join(calls, ",") != strings.Join(want, ",") {
		t.Fatalf("reconciles %v, want %v: the parked one with its reasons, the others dropped", calls, want)
	}
}

// A request dropped because another replica owns its hash, while this
// replica still knows the object, is queued again when the ring changes:
// if the change gives the hash back before this replica's cache let go
// of the object, no event would bring it again.
func TestShardedControllerRetakesWhatItRegains(t *testing.T) {
	ns := testkit.Namespace(t, "ctlregain")
	ha := hashOwnedBy(t, []string{"a", "b"}, "a")
	_, stopA := startTestRing(t, ns, "a")
	b, _ := startTestRing(t, ns, "b")
	testkit.Eventually(t, 30*time.Second, "b sees a own ha", func() bool {
		return len(b.Members()) == 2 && !b.Owns(ha)
	})

	var looked atomic.Int32
	hashOf := func(reconcile.Request) (uint64, bool) { looked.Add(1); return ha, true }
	reconciled := make(chan reconcile.Request, 10)
	rec := reconcile.Func(func(_ context.Context, r reconcile.Request) (reconcile.Result, error) {
		reconciled <- r
		return reconcile.Result{}, nil
	})
	startSharded(t, rec, b, hashOf, req("regained"))

	testkit.Eventually(t, 30*time.Second, "the request taken", func() bool { return looked.Load() >= 1 })
	select {
	case r := <-reconciled:
		t.Fatalf("%v reconciled on b while a owns its hash", r)
	default:
	}
	stopA() // a leaves: b owns ha
	select {
	case r := <-reconciled:
		if r != req("regained") {
			t.Fatalf("reconciled %v, want %v", r, req("regained"))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request dropped as a's was not reconciled once b owned its hash")
	}
}
