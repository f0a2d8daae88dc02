package reflector

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/testenv"
)

// With the feature gate, the server's shard of every selector is the one
// our filter computes, and it echoes ShardInfo; it applies the selector to
// a streamed list too, but nothing in the stream says so. Without the
// gate it ignores the selector everywhere. The reflector is the same
// either way, and its mode tells the two apart.
func TestShardSelectorsOnARealServer(t *testing.T) {
	t.Run("gate on", func(t *testing.T) {
		testShardServer(t, testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true")), true)
	})
	t.Run("gate off", func(t *testing.T) { testShardServer(t, testkit.Env(t), false) })
}

func testShardServer(t *testing.T, env *testenv.Environment, gate bool) {
	ctx := context.Background()
	cs := env.Clientset
	ns := env.NewNamespace(t, "shards")
	api := cs.CoreV1().ConfigMaps(ns)
	for i := range 60 {
		if _, err := api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := api.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shardOf := func(sel string) []string {
		f, err := newShardFilter(sel)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := range all.Items {
			if f == nil || f.matches(&all.Items[i]) {
				names = append(names, all.Items[i].Name)
			}
		}
		slices.Sort(names)
		return names
	}
	selectors := []string{
		lowHalf, highHalf,
		"shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || " +
			"shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
		"shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
	}
	for _, sel := range selectors {
		want := shardOf(sel)
		if !gate {
			want = shardOf("")
		}
		list, err := api.List(ctx, metav1.ListOptions{ShardSelector: sel})
		if err != nil {
			t.Fatalf("list with %s: %v", sel, err)
		}
		var got []string
		for _, c := range list.Items {
			got = append(got, c.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("gate %v, list with %s: server returned %d objects %v, want %d %v", gate, sel, len(got), got, len(want), want)
		}
		if echoed := list.ShardInfo != nil; echoed != gate {
			t.Errorf("gate %v, list with %s: ShardInfo %+v", gate, sel, list.ShardInfo)
		} else if gate && list.ShardInfo.Selector != sel {
			t.Errorf("ShardInfo.Selector %q, want %q", list.ShardInfo.Selector, sel)
		}
		t.Logf("gate %v: %s: %d of %d objects", gate, sel, len(got), len(all.Items))
	}

	// A streamed list: the server applies the selector to its initial
	// events (with the gate), and the bookmark ending them looks the same
	// either way.
	yes := true
	w, err := api.Watch(ctx, metav1.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks: true, ShardSelector: lowHalf})
	if err != nil {
		t.Fatal(err)
	}
	var streamed []string
	var end *corev1.ConfigMap
	for end == nil {
		select {
		case ev := <-w.ResultChan():
			switch ev.Type {
			case watch.Added:
				streamed = append(streamed, ev.Object.(*corev1.ConfigMap).Name)
			case watch.Bookmark:
				end = ev.Object.(*corev1.ConfigMap)
			default:
				t.Fatalf("unexpected %s in the stream: %v", ev.Type, ev.Object)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no initial-events-end bookmark")
		}
	}
	w.Stop()
	slices.Sort(streamed)
	if want := shardOf(map[bool]string{true: lowHalf, false: ""}[gate]); !slices.Equal(streamed, want) {
		t.Errorf("gate %v: streamed %d objects, want %d", gate, len(streamed), len(want))
	}
	if len(end.Annotations) != 1 || end.Annotations[metav1.InitialEventsAnnotationKey] != "true" || len(end.Labels) != 0 {
		t.Errorf("gate %v: the closing bookmark carries more than the end annotation: %+v", gate, end.ObjectMeta)
	}

	// Reflectors, streamed and paged, hold the shard and say who filtered,
	// for the list and for the watch events after it.
	wantMode := map[bool]ShardMode{true: ShardServer, false: ShardClient}[gate]
	var stores []*mapStore
	for _, mode := range []WatchListMode{WatchListAuto, WatchListOff} {
		s, r := runReflector(t, FromClient(api), WithShardSelector(lowHalf), WithWatchList(mode))
		stores = append(stores, s)
		testkit.Eventually(t, 30*time.Second, "the low half listed", func() error { return s.equal(shardOf(lowHalf)) })
		if m := r.ShardMode(); m != wantMode {
			t.Errorf("gate %v, watch list mode %d: ShardMode %s, want %s", gate, mode, m, wantMode)
		}
	}
	for i := 60; i < 100; i++ {
		if _, err := api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		if err := api.Delete(ctx, "cm-"+strconv.Itoa(i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	all, err = api.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stores {
		testkit.Eventually(t, 30*time.Second, "the watch to keep the low half", func() error { return s.equal(shardOf(lowHalf)) })
		if s.strays() > 0 {
			t.Errorf("gate %v: %d objects outside the shard reached the store", gate, s.strays())
		}
	}
}

// mapStore is a Store that keeps objects by name and counts those outside
// the lower half that reach it.
type mapStore struct {
	mu     sync.Mutex
	objs   map[string]CM
	stray  int
	filter *shardFilter
}

func (s *mapStore) put(o CM) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.filter.matches(o) {
		s.stray++
	}
	s.objs[o.Name] = o
	return nil
}

func (s *mapStore) Add(o CM) error    { return s.put(o) }
func (s *mapStore) Update(o CM) error { return s.put(o) }
func (s *mapStore) Delete(o CM) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objs, o.Name)
	return nil
}

func (s *mapStore) Replace(list []CM, _ string) error {
	s.mu.Lock()
	s.objs = map[string]CM{}
	s.mu.Unlock()
	for _, o := range list {
		_ = s.put(o)
	}
	return nil
}
func (s *mapStore) Resync() error   { return nil }
func (s *mapStore) Bookmark(string) {}

func (s *mapStore) strays() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stray
}

func (s *mapStore) equal(want []string) error {
	s.mu.Lock()
	got := slices.Sorted(maps.Keys(s.objs))
	s.mu.Unlock()
	if !slices.Equal(got, want) {
		return fmt.Errorf("store holds %d objects, want %d", len(got), len(want))
	}
	return nil
}

func runReflector(t *testing.T, lw ListerWatcher, opts ...Option) (*mapStore, *Reflector[CM]) {
	t.Helper()
	f, _ := newShardFilter(lowHalf)
	s := &mapStore{objs: map[string]CM{}, filter: f}
	r, err := New[CM](lw, s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, r
}
