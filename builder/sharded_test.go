package builder_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/shard"
	"github.com/steadyctl/steady/testenv"
)

// Short leases, so that a killed replica's keys move in seconds.
const (
	shardLease = 3 * time.Second
	shardRenew = 2 * time.Second
	shardRetry = 500 * time.Millisecond
	// moveBound is what a killed replica's keys may take to move beyond
	// the lease duration: noticing the expiry (a retry period), deleting
	// the Lease, acknowledging, relisting a third of the objects and
	// reconciling them, on a loaded two-core machine under -race.
	moveBound = 20 * time.Second
	nObjects  = 3000
)

// Three manager replicas with leader election on share 3,000 ConfigMaps
// by uid: each caches and reconciles about a third, every object once. A
// replica killed without releasing its Lease hands its keys to the others
// within the lease duration and a bound; a fourth replica takes about a
// quarter. No key is ever reconciled by two replicas at once. The same
// holds whether the API server filters (gate on) or the informers do
// (gate off), and the informers and metrics say which.
func TestShardedReplicas(t *testing.T) {
	t.Run("gate on", func(t *testing.T) {
		testShardedReplicas(t, testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true")), reflector.ShardServer)
	})
	t.Run("gate off", func(t *testing.T) { testShardedReplicas(t, testkit.Env(t), reflector.ShardClient) })
}

// detector is the reconciler of every replica: it marks each key in
// progress for a few milliseconds and records any key two replicas
// reconcile at once, and who reconciled what, when.
type detector struct {
	mu       sync.Mutex
	running  map[string]string // key -> replica reconciling it
	overlaps []string
	last     map[string]map[string]time.Time // replica -> key -> last reconcile start
}

func newDetector() *detector {
	return &detector{running: map[string]string{}, last: map[string]map[string]time.Time{}}
}

func (d *detector) reconciler(id string) reconcile.Reconciler {
	return reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		key := req.String()
		d.mu.Lock()
		other, busy := d.running[key]
		if busy {
			d.overlaps = append(d.overlaps, fmt.Sprintf("%s by %s while %s", key, id, other))
		} else {
			d.running[key] = id
		}
		if d.last[id] == nil {
			d.last[id] = map[string]time.Time{}
		}
		d.last[id][key] = time.Now()
		d.mu.Unlock()
		time.Sleep(3 * time.Millisecond) // the window an overlap would show in
		d.mu.Lock()
		if !busy {
			delete(d.running, key)
		}
		d.mu.Unlock()
		return reconcile.Result{}, nil
	})
}

// reconciledSince returns the keys replica id reconciled at or after t.
func (d *detector) reconciledSince(id string, t time.Time) map[string]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]bool{}
	for k, at := range d.last[id] {
		if !at.Before(t) {
			out[k] = true
		}
	}
	return out
}

func (d *detector) overlapping() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.overlaps)
}

// replica is one manager with its ring and its sharded ConfigMap cache.
type replica struct {
	id     string
	mgr    *manager.Manager
	ring   *shard.Ring
	inf    *informer.Informer[*corev1.ConfigMap]
	cancel context.CancelFunc
	done   chan struct{}
}

func startReplica(t *testing.T, env *testenv.Environment, ns, id string, d *detector) *replica {
	t.Helper()
	log := testr.NewWithOptions(t, testr.Options{Verbosity: 0}).WithName(id)
	mgr, err := manager.New(env.Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns), manager.WithLogger(log),
		manager.WithLeaderElection(manager.LeaderElection{Name: "sharded-test", Namespace: ns, Identity: id}))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := shard.New(mgr.Cluster(), "cms", id, shard.WithNamespace(ns), shard.WithLeaseDuration(shardLease),
		shard.WithRenewDeadline(shardRenew), shard.WithRetryPeriod(shardRetry), shard.WithReleaseOnCancel(false), shard.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	err = builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).
		Sharded(ring, shard.UID).
		WithOptions(controller.WithMaxConcurrentReconciles(4)).
		Complete(d.reconciler(id))
	if err != nil {
		t.Fatal(err)
	}
	inf, err := informer.For[*corev1.ConfigMap](mgr.Factory(), "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{id: id, mgr: mgr, ring: ring, inf: inf, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("replica %s: %v", id, err)
		}
	}()
	t.Cleanup(r.stop)
	return r
}

// stop cancels the replica's manager, as a crash would for its ring
// (WithReleaseOnCancel(false)), and waits for it.
func (r *replica) stop() {
	r.cancel()
	<-r.done
}

// cached returns the names of the objects in the replica's cache.
func (r *replica) cached() map[string]bool {
	out := map[string]bool{}
	for _, c := range r.inf.Cache().List() {
		out[c.Namespace+"/"+c.Name] = true
	}
	return out
}

// partitioned reports, as an error, how the replicas are not yet settled
// on members: each sees them all, and their caches hold every object
// exactly once, as each one's ring assigns them.
func partitioned(rs []*replica, all map[string]string) error {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.id)
	}
	slices.Sort(ids)
	seen := map[string]string{}
	for _, r := range rs {
		if m := r.ring.Members(); !slices.Equal(m, ids) {
			return fmt.Errorf("%s sees members %v, want %v", r.id, m, ids)
		}
		a := r.ring.Assignment()
		for k := range r.cached() {
			if other, dup := seen[k]; dup {
				return fmt.Errorf("%s is cached by %s and %s", k, other, r.id)
			}
			seen[k] = r.id
			if uid, ok := all[k]; ok && a.Owner(shard.Hash(uid)) != r.id {
				return fmt.Errorf("%s caches %s, which %s owns", r.id, k, a.Owner(shard.Hash(uid)))
			}
		}
	}
	if len(seen) != len(all) {
		return fmt.Errorf("%d of %d objects cached", len(seen), len(all))
	}
	return nil
}

// owners maps each key to the replica caching it.
func owners(rs []*replica) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		for k := range r.cached() {
			out[k] = r.id
		}
	}
	return out
}

func testShardedReplicas(t *testing.T, env *testenv.Environment, wantMode reflector.ShardMode) {
	ns := env.NewNamespace(t, "sharded")
	d := newDetector()
	var live []*replica
	for i := range 3 {
		live = append(live, startReplica(t, env, ns, "r"+strconv.Itoa(i), d))
	}
	none := map[string]string{}
	testkit.Eventually(t, 60*time.Second, "three replicas joined", func() error { return partitioned(live, none) })

	// Objects created once the ring is settled: each is reconciled by
	// its owner only.
	created := time.Now()
	all := createManyConfigMaps(t, env, ns, nObjects)
	testkit.Eventually(t, 120*time.Second, "3,000 objects cached by their owners", func() error { return partitioned(live, all) })
	testkit.Eventually(t, 120*time.Second, "every object reconciled", func() error {
		for _, r := range live {
			mine := r.cached()
			done := d.reconciledSince(r.id, created)
			for k := range mine {
				if !done[k] {
					return fmt.Errorf("%s has not reconciled %s", r.id, k)
				}
			}
		}
		return nil
	})
	var shares []string
	union := map[string]bool{}
	for _, r := range live {
		done := d.reconciledSince(r.id, created)
		c, n := len(r.cached()), len(done)
		for k := range done {
			union[k] = true
		}
		shares = append(shares, fmt.Sprintf("%s caches %d (%.1f%%), reconciled %d", r.id, c, 100*float64(c)/nObjects, n))
		for what, v := range map[string]int{"caches": c, "reconciled": n} {
			if v < nObjects*20/100 || v > nObjects*47/100 {
				t.Errorf("%s %s %d of %d objects: outside 20%%-47%%", r.id, what, v, nObjects)
			}
		}
		if m := r.inf.ShardMode(); m != wantMode {
			t.Errorf("%s: ShardMode %s, want %s", r.id, m, wantMode)
		}
	}
	t.Logf("three replicas (%s filtering): %s", wantMode, strings.Join(shares, "; "))
	if len(union) != nObjects {
		t.Errorf("%d objects reconciled, want all %d", len(union), nObjects)
	}
	checkShardMetrics(t, live[0], 3, wantMode)

	// Kill r2 without releasing its Lease: its keys move to r0 and r1.
	before := owners(live)
	killed := live[2]
	killed.stop()
	killedAt := time.Now()
	live = live[:2]
	var gone []string
	for k, o := range before {
		if o == killed.id {
			gone = append(gone, k)
		}
	}
	testkit.Eventually(t, shardLease+moveBound, "the killed replica's keys moved", func() error {
		if err := partitioned(live, all); err != nil {
			return err
		}
		for _, r := range live {
			done := d.reconciledSince(r.id, killedAt)
			for k := range r.cached() {
				if before[k] == killed.id && !done[k] {
					return fmt.Errorf("%s has not reconciled %s, which it took over", r.id, k)
				}
			}
		}
		return nil
	})
	took := time.Since(killedAt)
	t.Logf("killing %s: its %d keys moved to %s and %s and were reconciled %v later (lease %v, bound %v more)",
		killed.id, len(gone), live[0].id, live[1].id, took.Round(10*time.Millisecond), shardLease, moveBound)
	for k, o := range owners(live) {
		if before[k] != killed.id && before[k] != o {
			t.Errorf("%s moved from %s to %s: only the killed replica's keys should move", k, before[k], o)
		}
	}

	// A fourth replica takes about a quarter, from the others only.
	before = owners(live)
	live = append(live, startReplica(t, env, ns, "r3", d))
	testkit.Eventually(t, 60*time.Second, "the fourth replica joined", func() error { return partitioned(live, all) })
	after := owners(live)
	moved := 0
	for k, o := range after {
		switch {
		case o == before[k]:
		case o == "r3":
			moved++
		default:
			t.Errorf("%s moved from %s to %s: a joining member takes keys, the others keep theirs", k, before[k], o)
		}
	}
	t.Logf("adding r3: %d of %d keys (%.1f%%) moved to it", moved, nObjects, 100*float64(moved)/nObjects)
	if moved < nObjects*15/100 || moved > nObjects*35/100 {
		t.Errorf("%d of %d keys moved to the fourth replica: outside 15%%-35%%", moved, nObjects)
	}
	testkit.Eventually(t, 60*time.Second, "the fourth replica reconciled its keys", func() error {
		done := d.reconciledSince("r3", time.Time{})
		for k := range live[2].cached() {
			if !done[k] {
				return fmt.Errorf("r3 has not reconciled %s", k)
			}
		}
		return nil
	})
	if o := d.overlapping(); len(o) > 0 {
		t.Fatalf("%d reconciles overlapped across replicas, e.g. %v", len(o), o[:min(5, len(o))])
	}
}

// createManyConfigMaps creates n ConfigMaps concurrently and returns their
// uids by key.
func createManyConfigMaps(t *testing.T, env *testenv.Environment, ns string, n int) map[string]string {
	t.Helper()
	api := env.Clientset.CoreV1().ConfigMaps(ns)
	var mu sync.Mutex
	uids := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	const workers = 16
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				cm, err := api.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i)}}, metav1.CreateOptions{})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				uids[ns+"/"+cm.Name] = string(cm.UID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return uids
}

// checkShardMetrics reads r's registry: its ring's members, owned fraction
// and ranges, its handovers, and its sharded informer's objects and mode.
func checkShardMetrics(t *testing.T, r *replica, members int, mode reflector.ShardMode) {
	t.Helper()
	families, err := r.mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	// sample returns the one series of name: its value (a histogram's
	// sample count) and labels.
	sample := func(name string) (float64, map[string]string) {
		for _, f := range families {
			if f.GetName() != name {
				continue
			}
			if len(f.GetMetric()) != 1 {
				t.Fatalf("metric %s: %d series, want one", name, len(f.GetMetric()))
			}
			m := f.GetMetric()[0]
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), labels
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), labels
			default:
				return float64(m.GetHistogram().GetSampleCount()), labels
			}
		}
		t.Fatalf("metric %s not registered", name)
		return 0, nil
	}
	if v, l := sample("steady_shard_members"); v != float64(members) || l["ring"] != "cms" {
		t.Errorf("steady_shard_members %v %v, want %d {ring=cms}", v, l, members)
	}
	if v, _ := sample("steady_shard_owned_fraction"); v < 0.2 || v > 0.47 {
		t.Errorf("steady_shard_owned_fraction %v, want about a third", v)
	}
	if v, _ := sample("steady_shard_owned_ranges"); v < 1 {
		t.Errorf("steady_shard_owned_ranges %v", v)
	}
	if v, _ := sample("steady_shard_handovers_total"); v < 1 {
		t.Errorf("steady_shard_handovers_total %v, want at least the joins", v)
	}
	if v, _ := sample("steady_shard_handover_seconds"); v < 1 {
		t.Errorf("steady_shard_handover_seconds: %v observations", v)
	}
	v, l := sample("steady_shard_cached_objects")
	if want := float64(len(r.cached())); v != want || l["mode"] != mode.String() || l["ring"] != "cms" {
		t.Errorf("steady_shard_cached_objects %v %v, want %v with mode %s", v, l, want, mode)
	}
}
