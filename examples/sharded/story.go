package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/shard"
)

// The story's ring: short leases, so that a killed replica's objects move
// within seconds (the defaults are leader election's 15 s, 10 s and 2 s).
const (
	storyRing  = "sharded-example"
	storyLease = 4 * time.Second
	storyRenew = 3 * time.Second
	storyRetry = 500 * time.Millisecond
)

// share is what one replica held and did while three shared the ring.
type share struct {
	Replica    string
	Keyspace   float64 // fraction of the hash space its ranges cover
	Ranges     int
	Cached     int   // ConfigMaps in its cache
	Reconciles int64 // its reconciler's runs
	Writes     int64 // annotations it wrote
	Mode       reflector.ShardMode
}

// summary is what the story observed.
type summary struct {
	Objects    int            // ConfigMaps created
	Shares     []share        // with three replicas, once all were reconciled
	Killed     string         // the replica killed without releasing its Lease
	TakenOver  map[string]int // the killed replica's objects, by the replica that took them
	Takeover   time.Duration  // from the kill until they were all annotated by their new owners
	Lease      time.Duration
	Joined     string   // the replica added last
	Moved      int      // objects it took
	Strays     []string // objects that moved between replicas that kept running
	Annotated  int      // objects annotated by their owner at the end
	Reconciled int      // distinct objects reconciled at least once
	Reconciles int64    // reconciles across all replicas
	Overlaps   []string // a key reconciled by two replicas at once
}

// takenOver is the number of the killed replica's objects the others took.
func (s summary) takenOver() int {
	n := 0
	for _, k := range s.TakenOver {
		n += k
	}
	return n
}

// story plays a cluster's users and its operations team: it runs the
// replicas, creates the ConfigMaps and kills and adds replicas.
type story struct {
	cfg     *rest.Config
	cs      kubernetes.Interface
	out     io.Writer
	log     logr.Logger
	ns      string
	objects int
	timeout time.Duration // for each wait, beyond the lease duration
	fail    context.CancelCauseFunc

	mu       sync.Mutex
	running  map[string]string // key -> replica reconciling it now
	overlaps []string
	seen     map[string]bool // keys reconciled at least once
	calls    int64           // reconciles
}

// running is a started replica.
type running struct {
	*replica
	id     string
	cancel context.CancelFunc
	done   chan struct{}
}

// run plays the story with n ConfigMaps in a fresh namespace of the cluster
// at cfg, which it deletes afterwards.
func run(ctx context.Context, cfg *rest.Config, out io.Writer, n int) (_ summary, err error) {
	out = demo.LockedWriter(out)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, fmt.Errorf("client: %w", err)
	}
	nsObj, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "steady-sharded-"}}, metav1.CreateOptions{})
	if err != nil {
		return summary{}, fmt.Errorf("creating a namespace: %w", err)
	}
	defer func() {
		if err := cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), nsObj.Name, metav1.DeleteOptions{}); err == nil {
			fmt.Fprintf(out, "\ndeleted namespace %s\n", nsObj.Name)
		}
	}()
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	s := &story{cfg: cfg, cs: cs, out: out, log: logr.Discard(), ns: nsObj.Name, objects: n, timeout: 60 * time.Second,
		fail: fail, running: map[string]string{}, seen: map[string]bool{}}
	return s.play(ctx)
}

func (s *story) play(ctx context.Context) (summary, error) {
	sum := summary{Objects: s.objects, Lease: storyLease}
	fmt.Fprintf(s.out, "working in namespace %s: ring %q, its Leases there (lease %s, renew deadline %s, retry %s)\n",
		s.ns, storyRing, storyLease, storyRenew, storyRetry)

	fmt.Fprintln(s.out, "\n1. three replicas join the ring")
	var live []*running
	defer func() { s.stop(live...) }()
	for i := range 3 {
		r, err := s.start(ctx, "replica-"+strconv.Itoa(i), i == 2)
		if err != nil {
			return sum, err
		}
		live = append(live, r)
	}
	if _, err := s.wait(ctx, "all three see the same members", time.Now(), s.timeout, func() error { return s.settled(ctx, live, nil) }); err != nil {
		return sum, err
	}
	for _, r := range live {
		owned := r.ring.Owned()
		fmt.Fprintf(s.out, "  %s owns %.1f%% of the keyspace in %d ranges\n", r.id, 100*shard.Fraction(owned), len(owned))
	}

	fmt.Fprintf(s.out, "\n2. %d ConfigMaps labelled %s=true: each replica lists, watches and reconciles its shard\n", s.objects, enabledLabel)
	uids, err := s.create(ctx)
	if err != nil {
		return sum, err
	}
	if _, err := s.wait(ctx, "every ConfigMap annotated by the replica that owns it", time.Now(), s.timeout, func() error { return s.settled(ctx, live, uids) }); err != nil {
		return sum, err
	}
	fmt.Fprintf(s.out, "  %-10s %8s %7s %10s %7s  %s\n", "replica", "keyspace", "cached", "reconciles", "writes", "filtering")
	for _, r := range live {
		owned := r.ring.Owned()
		sh := share{Replica: r.id, Keyspace: shard.Fraction(owned), Ranges: len(owned), Cached: r.cached(),
			Reconciles: r.op.reconciles.Load(), Writes: r.op.writes.Load(), Mode: r.op.cms.Informer().ShardMode()}
		sum.Shares = append(sum.Shares, sh)
		fmt.Fprintf(s.out, "  %-10s %7.1f%% %7d %10d %7d  %s\n", sh.Replica, 100*sh.Keyspace, sh.Cached, sh.Reconciles, sh.Writes, modeText(sh.Mode))
	}

	victim := live[2]
	fmt.Fprintf(s.out, "\n3. %s is killed without releasing its Lease: the others take its objects once the Lease expires\n", victim.id)
	before, err := s.annotations(ctx)
	if err != nil {
		return sum, err
	}
	killed := time.Now()
	s.stop(victim)
	live = live[:2]
	sum.Killed = victim.id
	sum.Takeover, err = s.wait(ctx, "its objects taken over", killed, storyLease+s.timeout, func() error { return s.settled(ctx, live, uids) })
	if err != nil {
		return sum, err
	}
	after, err := s.annotations(ctx)
	if err != nil {
		return sum, err
	}
	sum.TakenOver = map[string]int{}
	for k, by := range after {
		if before[k] == victim.id {
			sum.TakenOver[by]++
		} else if by != before[k] {
			sum.Strays = append(sum.Strays, fmt.Sprintf("%s moved from %s to %s", k, before[k], by))
		}
	}
	fmt.Fprintf(s.out, "  %s's %d ConfigMaps: %s, %s after the kill (lease duration %s)\n", victim.id,
		sum.takenOver(), takenBy(sum.TakenOver), sum.Takeover.Round(10*time.Millisecond), storyLease)

	fmt.Fprintln(s.out, "\n4. replica-3 joins the two left: it takes about a third, from both")
	before = after
	r, err := s.start(ctx, "replica-3", false)
	if err != nil {
		return sum, err
	}
	live = append(live, r)
	if _, err := s.wait(ctx, "replica-3 reconciled its share", time.Now(), s.timeout, func() error { return s.settled(ctx, live, uids) }); err != nil {
		return sum, err
	}
	after, err = s.annotations(ctx)
	if err != nil {
		return sum, err
	}
	sum.Joined = r.id
	for k, by := range after {
		switch {
		case by == before[k]:
		case by == r.id:
			sum.Moved++
		default:
			sum.Strays = append(sum.Strays, fmt.Sprintf("%s moved from %s to %s", k, before[k], by))
		}
	}
	fmt.Fprintf(s.out, "  %d ConfigMaps (%.1f%%) moved to %s, none between the others: %t\n",
		sum.Moved, 100*float64(sum.Moved)/float64(s.objects), r.id, len(sum.Strays) == 0)

	a := r.ring.Assignment()
	for k, uid := range uids {
		if after[k] == a.Owner(shard.Hash(uid)) {
			sum.Annotated++
		}
	}
	s.stop(live...)
	live = nil
	s.mu.Lock()
	sum.Reconciled, sum.Reconciles, sum.Overlaps = len(s.seen), s.calls, slices.Clone(s.overlaps)
	s.mu.Unlock()
	return sum, nil
}

// start runs replica id in the story's ring. A replica started with crash
// set does not release its Lease when stopped, as a killed process would not.
func (s *story) start(ctx context.Context, id string, crash bool) (*running, error) {
	rep, err := newReplica(s.cfg, storyRing, id,
		[]shard.Option{shard.WithNamespace(s.ns), shard.WithLeaseDuration(storyLease), shard.WithRenewDeadline(storyRenew),
			shard.WithRetryPeriod(storyRetry), shard.WithReleaseOnCancel(!crash), shard.WithLogger(s.log.WithName(id))},
		manager.WithNamespace(s.ns), manager.WithLogger(s.log.WithName(id)))
	if err != nil {
		return nil, err
	}
	rep.op.track = s.track
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &running{replica: rep, id: id, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := rep.mgr.Start(ctx); err != nil {
			s.fail(fmt.Errorf("replica %s: %w", id, err))
		}
	}()
	fmt.Fprintf(s.out, "  started %s\n", id)
	return r, nil
}

// stop stops replicas at once and waits for them.
func (s *story) stop(rs ...*running) {
	for _, r := range rs {
		r.cancel()
	}
	for _, r := range rs {
		<-r.done
	}
}

// track marks key in progress on replica until the returned func is
// called, and records a key two replicas reconcile at once.
func (s *story) track(key, replica string) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[key] = true
	s.calls++
	if other, busy := s.running[key]; busy {
		s.overlaps = append(s.overlaps, fmt.Sprintf("%s by %s while %s", key, replica, other))
		return func() {}
	}
	s.running[key] = replica
	return func() {
		s.mu.Lock()
		delete(s.running, key)
		s.mu.Unlock()
	}
}

// create creates the story's ConfigMaps, a few at a time, and returns their
// uids by key.
func (s *story) create(ctx context.Context) (map[string]string, error) {
	var mu sync.Mutex
	uids := map[string]string{}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for w := range errs {
		wg.Go(func() {
			for i := w; i < s.objects && errs[w] == nil; i += len(errs) {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Labels: map[string]string{enabledLabel: "true"}}}
				cm, err := s.cs.CoreV1().ConfigMaps(s.ns).Create(ctx, cm, metav1.CreateOptions{})
				if err != nil {
					errs[w] = fmt.Errorf("creating configmap %d: %w", i, err)
					return
				}
				mu.Lock()
				uids[s.ns+"/"+cm.Name] = string(cm.UID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(s.out, "  created %d ConfigMaps\n", len(uids))
	return uids, nil
}

// annotations reads from the API server which replica annotated each of the
// story's ConfigMaps ("" for none yet).
func (s *story) annotations(ctx context.Context) (map[string]string, error) {
	list, err := s.cs.CoreV1().ConfigMaps(s.ns).List(ctx, metav1.ListOptions{LabelSelector: enabledLabel + "=true"})
	if err != nil {
		return nil, fmt.Errorf("listing configmaps: %w", err)
	}
	out := make(map[string]string, len(list.Items))
	for _, cm := range list.Items {
		out[cm.Namespace+"/"+cm.Name] = cm.Annotations[reconciledByAnnotation]
	}
	return out, nil
}

// settled reports, as an error, how the live replicas have not yet settled:
// each sees exactly the live members, caches exactly the objects (key ->
// uid) the ring assigns it, and every object carries its owner's
// annotation on the API server.
func (s *story) settled(ctx context.Context, live []*running, uids map[string]string) error {
	var ids []string
	for _, r := range live {
		ids = append(ids, r.id)
	}
	slices.Sort(ids)
	cached := 0
	for _, r := range live {
		if m := r.ring.Members(); !slices.Equal(m, ids) {
			return fmt.Errorf("%s sees members %v, want %v", r.id, m, ids)
		}
		a := r.ring.Assignment()
		for _, cm := range r.op.cms.Informer().Cache().List() {
			if owner := a.Owner(shard.Hash(string(cm.UID))); owner != r.id {
				return fmt.Errorf("%s caches %s/%s, which %s owns", r.id, cm.Namespace, cm.Name, owner)
			}
			cached++
		}
	}
	if cached != len(uids) {
		return fmt.Errorf("%d of %d ConfigMaps cached", cached, len(uids))
	}
	if len(uids) == 0 {
		return nil
	}
	by, err := s.annotations(ctx)
	if err != nil {
		return err
	}
	a := live[0].ring.Assignment()
	for k, uid := range uids {
		if owner := a.Owner(shard.Hash(uid)); by[k] != owner {
			return fmt.Errorf("%s annotated by %q, owner %s", k, by[k], owner)
		}
	}
	return nil
}

// wait polls cond until it holds, for at most timeout, says so and
// returns how long it took since start.
func (s *story) wait(ctx context.Context, what string, start time.Time, timeout time.Duration, cond func() error) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := cond()
		if err == nil {
			took := time.Since(start)
			fmt.Fprintf(s.out, "  ✓ %s, after %s\n", what, took.Round(10*time.Millisecond))
			return took, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting until %s: %w (last: %v)", what, context.Cause(ctx), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// modeText explains a replica's shard mode.
func modeText(m reflector.ShardMode) string {
	switch m {
	case reflector.ShardServer:
		return "server: the API server sends this replica its shard only"
	case reflector.ShardClient:
		return "client: the API server sends every object (ShardedListAndWatch off), the informer keeps its shard"
	}
	return m.String()
}

// takenBy lists how many objects each replica took, in replica order.
func takenBy(n map[string]int) string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d to %s", n[id], id))
	}
	return strings.Join(parts, ", ")
}
