package informer_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/sharding"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/testenv"
)

const (
	lowHalf      = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf     = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
	firstQuarter = "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')"
)

// inRange reports, with apimachinery's hash (kube-apiserver's), whether
// uid hashes into [lo, hi) (hi "" for 2^64).
func inRange(uid, lo, hi string) bool {
	h := "0x" + sharding.HashField(uid)
	return !sharding.HexLess(h, lo) && (hi == "" || sharding.HexLess(h, hi))
}

// shardEvents records what a sharded informer's handler gets: every event,
// and any about an object outside the shard.
type shardEvents struct {
	mu     sync.Mutex
	lo, hi string
	log    []string // "create name", "update name", "delete name unknown=true"
	stray  []string
	held   map[string]string // name -> resourceVersion, as the events say
}

func (s *shardEvents) handler() informer.Handler[*corev1.ConfigMap] {
	note := func(kind string, o *corev1.ConfigMap, extra string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.log = append(s.log, kind+" "+o.Name+extra)
		if kind != "delete" && !inRange(string(o.UID), s.lo, s.hi) {
			s.stray = append(s.stray, kind+" "+o.Name)
		}
		if kind == "delete" {
			delete(s.held, o.Name)
		} else {
			s.held[o.Name] = o.ResourceVersion
		}
	}
	return informer.HandlerFuncs[*corev1.ConfigMap]{
		CreateFunc: func(e event.Create[*corev1.ConfigMap]) { note("create", e.Object, "") },
		UpdateFunc: func(e event.Update[*corev1.ConfigMap]) { note("update", e.ObjectNew, "") },
		DeleteFunc: func(e event.Delete[*corev1.ConfigMap]) {
			note("delete", e.Object, " unknown="+strconv.FormatBool(e.DeleteStateUnknown))
		},
	}
}

// since returns the events after the first n.
func (s *shardEvents) since(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log[n:])
}

func (s *shardEvents) strays() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stray)
}

func (s *shardEvents) setRange(lo, hi string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lo, s.hi = lo, hi
}

func (s *shardEvents) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

func (s *shardEvents) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.held))
}

// Two informers with the two half ranges partition 200 ConfigMaps, in
// the same way whether the API server filters (gate on) or the informers
// do (gate off, testkit's shared environment), and ShardMode tells which.
// Watch events keep to the range; narrowing one informer to a quarter
// deletes the rest from its cache with Delete events, and nothing else.
func TestShardedInformersPartition(t *testing.T) {
	t.Run("gate on", func(t *testing.T) {
		testPartition(t, testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true")), reflector.ShardServer)
	})
	t.Run("gate off", func(t *testing.T) { testPartition(t, testkit.Env(t), reflector.ShardClient) })
}

func testPartition(t *testing.T, env *testenv.Environment, wantMode reflector.ShardMode) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := env.Clientset
	ns := env.NewNamespace(t, "shards")
	api := cs.CoreV1().ConfigMaps(ns)
	testkit.CreateConfigMaps(t, cs, ns, 0, 200)

	// The low half streams its lists (WatchList, the default), the high
	// half pages them: both paths are sharded.
	type shard struct {
		inf    *informer.Informer[*corev1.ConfigMap]
		events *shardEvents
	}
	var shards []shard
	for _, s := range []struct {
		name, sel, lo, hi string
		ropts             []reflector.Option
	}{
		{"low", lowHalf, "0x0000000000000000", "0x8000000000000000", nil},
		{"high", highHalf, "0x8000000000000000", "", []reflector.Option{reflector.WithWatchList(reflector.WatchListOff)}},
	} {
		inf, err := informer.New[*corev1.ConfigMap](reflector.FromClient(api), informer.WithName(s.name), informer.WithReflectorOptions(s.ropts...))
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.SetShardSelector(s.sel); err != nil {
			t.Fatal(err)
		}
		ev := &shardEvents{lo: s.lo, hi: s.hi, held: map[string]string{}}
		if _, err := inf.AddHandler(ev.handler()); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() { _ = inf.Start(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
		shards = append(shards, shard{inf, ev})
	}
	for _, s := range shards {
		if err := s.inf.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// want returns each shard's names by apimachinery's hash of a fresh list.
	want := func(lo, hi string) []string {
		list, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range list.Items {
			if inRange(string(c.UID), lo, hi) {
				names = append(names, c.Name)
			}
		}
		slices.Sort(names)
		return names
	}
	converge := func(what string, s shard, lo, hi string) {
		t.Helper()
		testkit.Eventually(t, 30*time.Second, what, func() error {
			w := want(lo, hi)
			if got := cacheNames(s.inf); !slices.Equal(got, w) {
				return fmt.Errorf("%s caches %d objects, want %d", s.inf.Name(), len(got), len(w))
			}
			if got := s.events.names(); !slices.Equal(got, w) {
				return fmt.Errorf("%s's handler holds %d objects, want %d", s.inf.Name(), len(got), len(w))
			}
			return nil
		})
	}
	converge("the low half cached", shards[0], "0x0000000000000000", "0x8000000000000000")
	converge("the high half cached", shards[1], "0x8000000000000000", "")
	low, high := cacheNames(shards[0].inf), cacheNames(shards[1].inf)
	union := slices.Sorted(slices.Values(append(slices.Clone(low), high...)))
	if len(slices.Compact(union)) != 200 || len(low)+len(high) != 200 {
		t.Fatalf("halves of %d and %d objects, union %d: not a partition of 200", len(low), len(high), len(slices.Compact(union)))
	}
	t.Logf("mode %s: 200 ConfigMaps split %d / %d", wantMode, len(low), len(high))
	if len(low) < 70 || len(high) < 70 { // binomial(200, 1/2): 4 standard deviations
		t.Errorf("split %d / %d is far from half and half", len(low), len(high))
	}
	for _, s := range shards {
		if m := s.inf.ShardMode(); m != wantMode {
			t.Errorf("%s: ShardMode %s, want %s", s.inf.Name(), m, wantMode)
		}
	}

	// Watch events after the list keep to the range.
	testkit.CreateConfigMaps(t, cs, ns, 200, 260)
	for i := 0; i < 40; i += 2 {
		cm, err := api.Get(ctx, "cm-"+strconv.Itoa(i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data = map[string]string{"v": "1"}
		if _, err := api.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := api.Delete(ctx, "cm-"+strconv.Itoa(i+1), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	converge("the low half kept by watch events", shards[0], "0x0000000000000000", "0x8000000000000000")
	converge("the high half kept by watch events", shards[1], "0x8000000000000000", "")
	for _, s := range shards {
		if stray := s.events.strays(); len(stray) > 0 {
			t.Errorf("%s: events about objects outside its shard: %v", s.inf.Name(), stray)
		}
	}

	// Half to quarter: the second quarter leaves with Delete events, and
	// nothing else happens.
	lowInf, lowEv := shards[0].inf, shards[0].events
	before := lowEv.count()
	rvs := map[string]string{}
	for _, c := range lowInf.Cache().List() {
		rvs[c.Name] = c.ResourceVersion
	}
	leaving := want("0x4000000000000000", "0x8000000000000000")
	if err := lowInf.SetShardSelector(firstQuarter); err != nil {
		t.Fatal(err)
	}
	lowEv.setRange("0x0000000000000000", "0x4000000000000000")
	converge("the low half narrowed to a quarter", shards[0], "0x0000000000000000", "0x4000000000000000")
	got := lowEv.since(before)
	var wantEvents []string
	for _, name := range leaving {
		wantEvents = append(wantEvents, "delete "+name+" unknown=true")
	}
	slices.Sort(got)
	if !slices.Equal(got, wantEvents) {
		t.Fatalf("events after narrowing to a quarter:\n%s\nwant only the deletions of the second quarter:\n%s",
			strings.Join(got, "\n"), strings.Join(wantEvents, "\n"))
	}
	for _, c := range lowInf.Cache().List() {
		if rvs[c.Name] != c.ResourceVersion {
			t.Errorf("%s changed in the cache: resourceVersion %s, was %s", c.Name, c.ResourceVersion, rvs[c.Name])
		}
	}
	if s := lowInf.ShardSelector(); s != firstQuarter {
		t.Errorf("ShardSelector() = %q", s)
	}
	if m := lowInf.ShardMode(); m != wantMode {
		t.Errorf("ShardMode after the change: %s, want %s", m, wantMode)
	}
	t.Logf("narrowing to a quarter deleted %d of %d objects", len(leaving), len(rvs))
}

func cacheNames(inf *informer.Informer[*corev1.ConfigMap]) []string {
	var names []string
	for _, c := range inf.Cache().List() {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	return names
}

// A kind's ShardSelector is the initial selector of the factory's
// informers of the kind; a malformed one is an error of NewFactory naming
// the kind and the field.
func TestFactoryKindShardSelector(t *testing.T) {
	env := testkit.Env(t)
	cm := schema.GroupKind{Kind: "ConfigMap"}
	bad := newFactoryErr(t, env, informer.WithKind(cm, informer.KindOptions{ShardSelector: "shardRange(object.metadata.uid)"}))
	if bad == nil || !strings.Contains(bad.Error(), "WithKind(ConfigMap): ShardSelector") {
		t.Fatalf("malformed ShardSelector: %v, want an error naming WithKind(ConfigMap): ShardSelector", bad)
	}
	f := newFactory(t, env.Config, clientgoscheme.Scheme, informer.WithKind(cm, informer.KindOptions{ShardSelector: lowHalf}))
	ns := testkit.Namespace(t, "kindshard")
	api := testkit.Clientset(t).CoreV1().ConfigMaps(ns)
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 40)
	inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if s := inf.ShardSelector(); s != lowHalf {
		t.Fatalf("ShardSelector() = %q, want the kind's", s)
	}
	if m := inf.ShardMode(); m != reflector.ShardUnknown {
		t.Fatalf("ShardMode before Start: %s", m)
	}
	if err := inf.SetShardSelector("shardRange(object.metadata.uid, '0x1', '0x2')"); err == nil ||
		!strings.Contains(err.Error(), "SetShardSelector") || inf.ShardSelector() != lowHalf {
		t.Fatalf("malformed SetShardSelector: %v, selector now %q", err, inf.ShardSelector())
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := startFactory(f, ctx)
	defer func() { cancel(); wait() }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := api.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range list.Items {
		if inRange(string(c.UID), "0x0000000000000000", "0x8000000000000000") {
			want = append(want, c.Name)
		}
	}
	slices.Sort(want)
	if got := cacheNames(inf); !slices.Equal(got, want) {
		t.Fatalf("cache %v, want the low half %v", got, want)
	}
	if m := inf.ShardMode(); m != reflector.ShardClient {
		t.Fatalf("ShardMode %s on the shared environment (gate off), want client", m)
	}
}

func newFactoryErr(t *testing.T, env *testenv.Environment, opts ...informer.FactoryOption) error {
	t.Helper()
	c := newFactory(t, env.Config, clientgoscheme.Scheme) // a valid cluster to hand over
	_, err := informer.NewFactory(c.Cluster(), opts...)
	return err
}
