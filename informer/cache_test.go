package informer

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/steadyctl/steady/object"
)

func pod(ns, name, node string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{NodeName: node},
	}
}

func byNode(p *corev1.Pod) ([]string, error) {
	if p.Spec.NodeName == "bad" {
		return nil, errors.New("node name is bad")
	}
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

func putAll(t *testing.T, c *Cache[*corev1.Pod], pods ...*corev1.Pod) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range pods {
		if _, err := c.put(object.Key(p), p, true); err != nil {
			t.Fatalf("put %s: %v", object.Key(p), err)
		}
	}
}

func sortedKeys(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, object.Key(p))
	}
	sort.Strings(out)
	return out
}

func TestCacheIndexesFollowUpdatesAndDeletes(t *testing.T) {
	forCacheModes(t, testCacheIndexesFollowUpdatesAndDeletes)
}

func testCacheIndexesFollowUpdatesAndDeletes(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	if err := c.AddIndex("node", byNode); err != nil {
		t.Fatal(err)
	}
	putAll(t, c, pod("a", "p1", "n1", nil), pod("a", "p2", "n1", nil), pod("b", "p3", "n2", nil))

	got, _ := c.ByIndex("node", "n1")
	if want := []string{"a/p1", "a/p2"}; !slices.Equal(sortedKeys(got), want) {
		t.Fatalf("node n1: %v, want %v", sortedKeys(got), want)
	}
	putAll(t, c, pod("a", "p2", "n2", nil)) // moved to n2
	got, _ = c.ByIndex("node", "n2")
	if want := []string{"a/p2", "b/p3"}; !slices.Equal(sortedKeys(got), want) {
		t.Fatalf("node n2 after move: %v, want %v", sortedKeys(got), want)
	}
	c.mu.Lock()
	c.remove("b/p3")
	c.mu.Unlock()
	if vals := c.IndexValues(NamespaceIndex); !slices.Equal(vals, []string{"a"}) {
		t.Fatalf("namespaces after deleting the only pod in b: %v", vals)
	}
	keys, _ := c.IndexKeys("node", "n1")
	if !slices.Equal(keys, []string{"a/p1"}) {
		t.Fatalf("node n1 keys: %v", keys)
	}
	if _, err := c.ByIndex("missing", "x"); !errors.Is(err, ErrUnknownIndex) {
		t.Fatalf("unknown index: %v", err)
	}
}

func TestCacheFailingIndexFuncIsAnErrorNotAPanic(t *testing.T) {
	forCacheModes(t, testCacheFailingIndexFuncIsAnErrorNotAPanic)
}

func testCacheFailingIndexFuncIsAnErrorNotAPanic(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	if err := c.AddIndex("node", byNode); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	_, err := c.put("a/bad", pod("a", "bad", "bad", nil), true)
	c.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "a/bad") || !strings.Contains(err.Error(), `"node"`) {
		t.Fatalf("failing index func: got %v, want an error naming the object and index", err)
	}
	if _, ok := c.Get("a", "bad"); !ok {
		t.Fatal("object whose index failed was dropped from the cache")
	}
	if got, _ := c.ByIndex(NamespaceIndex, "a"); len(got) != 1 {
		t.Fatalf("other indexes must still hold the object: %v", got)
	}
	// Fixing the object re-indexes it; the earlier failure leaves no stale entry.
	putAll(t, c, pod("a", "bad", "n1", nil))
	if keys, _ := c.IndexKeys("node", "n1"); !slices.Equal(keys, []string{"a/bad"}) {
		t.Fatalf("after fix: %v", keys)
	}
}

func TestCacheAddIndexIndexesExistingObjects(t *testing.T) {
	forCacheModes(t, testCacheAddIndexIndexesExistingObjects)
}

func testCacheAddIndexIndexesExistingObjects(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	putAll(t, c, pod("a", "p1", "n1", nil), pod("a", "p2", "bad", nil))
	err := c.AddIndex("node", byNode)
	if err == nil || !strings.Contains(err.Error(), "a/p2") {
		t.Fatalf("AddIndex over a failing object: %v", err)
	}
	if keys, _ := c.IndexKeys("node", "n1"); !slices.Equal(keys, []string{"a/p1"}) {
		t.Fatalf("existing objects not indexed: %v", keys)
	}
	if err := c.AddIndex("node", byNode); err == nil {
		t.Fatal("adding an index twice must fail")
	}
}

func TestGeneratedListerReadsCache(t *testing.T) { forCacheModes(t, testGeneratedListerReadsCache) }

func testGeneratedListerReadsCache(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	putAll(t, c,
		pod("a", "web-1", "n1", map[string]string{"app": "web"}),
		pod("a", "db-1", "n1", map[string]string{"app": "db"}),
		pod("b", "web-2", "n2", map[string]string{"app": "web"}),
	)
	lister := corev1listers.NewPodLister(c.Indexer())

	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 3 {
		t.Fatalf("List: %d pods, %v", len(all), err)
	}
	web, err := lister.Pods("a").List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	if err != nil || len(web) != 1 || web[0].Name != "web-1" {
		t.Fatalf("namespaced, selected list: %v %v", web, err)
	}
	p, err := lister.Pods("b").Get("web-2")
	if err != nil || p.Spec.NodeName != "n2" {
		t.Fatalf("Get: %v %v", p, err)
	}
	if _, err := lister.Pods("b").Get("nope"); err == nil {
		t.Fatal("Get of a missing pod must be NotFound")
	}
}

// The namespace index answers the same whether the cache holds one
// namespace (no key sets kept) or several (sets built when the second
// arrives), through updates, deletes down to none and back, and clear.
func TestCacheNamespaceIndexOneNamespaceAndMore(t *testing.T) {
	forCacheModes(t, testCacheNamespaceIndexOneNamespaceAndMore)
}

func testCacheNamespaceIndexOneNamespaceAndMore(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	remove := func(key string) {
		c.mu.Lock()
		c.remove(key)
		c.mu.Unlock()
	}
	check := func(step string, want map[string][]string) {
		t.Helper()
		var namespaces []string
		for ns := range want {
			namespaces = append(namespaces, ns)
		}
		sort.Strings(namespaces)
		if got := c.IndexValues(NamespaceIndex); !slices.Equal(got, namespaces) {
			t.Fatalf("%s: namespaces %v, want %v", step, got, namespaces)
		}
		for _, ns := range append(namespaces, "other") {
			objs, err := c.ByIndex(NamespaceIndex, ns)
			if err != nil {
				t.Fatal(err)
			}
			keys, _ := c.IndexKeys(NamespaceIndex, ns)
			sort.Strings(keys)
			if got := sortedKeys(objs); !slices.Equal(got, want[ns]) || !slices.Equal(keys, want[ns]) {
				t.Fatalf("%s: namespace %q holds %v (keys %v), want %v", step, ns, got, keys, want[ns])
			}
		}
	}

	check("empty", nil)
	putAll(t, c, pod("a", "p1", "", nil), pod("a", "p2", "", nil))
	putAll(t, c, pod("a", "p2", "n1", nil)) // an update: counted once
	check("one namespace", map[string][]string{"a": {"a/p1", "a/p2"}})
	remove("a/p1")
	remove("a/p2")
	check("emptied", nil)
	putAll(t, c, pod("b", "p1", "", nil))
	check("another single namespace", map[string][]string{"b": {"b/p1"}})
	putAll(t, c, pod("a", "p1", "", nil), pod("b", "p2", "", nil))
	check("two namespaces", map[string][]string{"a": {"a/p1"}, "b": {"b/p1", "b/p2"}})
	remove("a/p1")
	check("one namespace left", map[string][]string{"b": {"b/p1", "b/p2"}})

	c.clear()
	check("cleared", nil)
	putAll(t, c, pod("c", "p1", "", nil))
	check("after clear", map[string][]string{"c": {"c/p1"}})
	if ix := c.indexes[NamespaceIndex]; ix.spread || len(ix.keysByVal) != 0 {
		t.Fatalf("a cache of one namespace keeps key sets: %v", ix.keysByVal)
	}
	putAll(t, c, pod("d", "p1", "", nil))
	check("after clear, two namespaces", map[string][]string{"c": {"c/p1"}, "d": {"d/p1"}})
}
