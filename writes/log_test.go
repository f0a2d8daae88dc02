package writes_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/writes"
)

// loggedRV returns the resourceVersion of the write the log keeps for
// namespace/name through c, "deleted" for a deletion, "none" for none.
func loggedRV(t *testing.T, ctx context.Context, c writes.Cache, ns, name string) string {
	t.Helper()
	w, ok := writes.Find(ctx, c, ns, name)
	switch {
	case !ok:
		return "none"
	case w.Deleted:
		return "deleted"
	}
	obj, isCM := w.Object.(*corev1.ConfigMap)
	if !isCM || obj.ResourceVersion != w.ResourceVersion || obj.Data["rv"] != w.ResourceVersion {
		t.Fatalf("Find(%s/%s) = %+v: its Object is not the one written with resourceVersion %s", ns, name, w, w.ResourceVersion)
	}
	return w.ResourceVersion
}

// With ContextWithLog the log keeps each object's latest write, by
// namespace and name; a change older by resourceVersion than the kept
// one is dropped, and the recorder still gets every write.
func TestLogKeepsTheLatestChange(t *testing.T) {
	c := &fakeCache{"a"}
	rec := &recorded{}
	ctx := writes.ContextWithLog(writes.ContextWithRecorder(context.Background(), rec))
	if got, ok := writes.Find(ctx, c, "ns", "x"); ok {
		t.Fatalf("Find of a fresh log = %+v, true; want none", got)
	}
	if got := writes.List(ctx, c); got != nil {
		t.Fatalf("List of a fresh log = %+v; want nil", got)
	}
	for _, step := range []struct {
		obj  *corev1.ConfigMap
		want string // the resourceVersion of ns/x kept after it
	}{
		{cm("ns", "x", "5"), "5"},
		{cm("ns", "x", "7"), "7"},
		{cm("ns", "x", "6"), "7"},   // recorded late: older than 7, dropped
		{cm("ns", "x", "7"), "7"},   // the same: kept either way
		{cm("ns", "x", "10"), "10"}, // longer is newer, not lexically smaller
		{cm("ns", "x", "9"), "10"},
		{cm("ns", "y", "1"), "10"}, // another name
		{cm("other", "x", "2"), "10"},
	} {
		writes.Record(ctx, change(c, step.obj))
		if got := loggedRV(t, ctx, c, "ns", "x"); got != step.want {
			t.Fatalf("after a write of %s/%s at %s, ns/x is at %q; want %q",
				step.obj.Namespace, step.obj.Name, step.obj.ResourceVersion, got, step.want)
		}
	}
	if got := loggedRV(t, ctx, c, "ns", "y"); got != "1" {
		t.Fatalf("ns/y at %q; want 1", got)
	}
	if got := loggedRV(t, ctx, c, "other", "x"); got != "2" {
		t.Fatalf("other/x at %q; want 2", got)
	}
	if got := len(writes.List(ctx, c)); got != 3 {
		t.Fatalf("List has %d writes; want 3, one per object", got)
	}
	if got := len(rec.seen()); got != 8 {
		t.Fatalf("recorder got %d writes; want all 8, dropped or not", got)
	}
}

// Where either resourceVersion is not a well-formed number (KEP-5504), the
// log cannot tell which is newer and the later record wins.
func TestLogLaterWinsWithoutComparableVersions(t *testing.T) {
	for _, tc := range []struct{ first, second string }{
		{"7", "abc"},
		{"abc", "7"},
		{"7", "06"}, // a leading zero is not well formed
		{"7", ""},
		{"", "3"},
		{"b", "a"},
	} {
		c := &fakeCache{"a"}
		ctx := writes.ContextWithLog(context.Background())
		writes.Record(ctx, change(c, cm("ns", "x", tc.first)))
		writes.Record(ctx, change(c, cm("ns", "x", tc.second)))
		if got := loggedRV(t, ctx, c, "ns", "x"); got != tc.second {
			t.Errorf("writes at %q then %q: kept %q; want the later", tc.first, tc.second, got)
		}
	}
}

// A deletion replaces the change kept, and a change after a deletion (the
// object made again) replaces it.
func TestLogDeletionAndChangeReplaceEachOther(t *testing.T) {
	c := &fakeCache{"a"}
	ctx := writes.ContextWithLog(context.Background())
	writes.Record(ctx, change(c, cm("ns", "x", "9")))
	writes.Record(ctx, writes.Write{Cache: c, Namespace: "ns", Name: "x", UID: "uid-x", Deleted: true})
	w, ok := writes.Find(ctx, c, "ns", "x")
	if !ok || !w.Deleted || w.Object != nil || w.UID != "uid-x" {
		t.Fatalf("after a change then a deletion: Find = %+v, %v; want the deletion", w, ok)
	}
	again := cm("ns", "x", "12")
	again.UID = "uid-x2"
	writes.Record(ctx, change(c, again))
	if got := loggedRV(t, ctx, c, "ns", "x"); got != "12" {
		t.Fatalf("after a deletion then a create at 12: kept %q; want 12", got)
	}
	if w, _ := writes.Find(ctx, c, "ns", "x"); w.UID != "uid-x2" {
		t.Fatalf("kept UID %q; want the new object's", w.UID)
	}
	writes.Record(ctx, writes.Write{Cache: c, Namespace: "ns", Name: "x", UID: "uid-x2", ResourceVersion: "13", Deleted: true})
	if got := loggedRV(t, ctx, c, "ns", "x"); got != "deleted" {
		t.Fatalf("after a change at 12 then a deletion at 13: kept %q; want the deletion", got)
	}
	if got := writes.List(ctx, c); len(got) != 1 || !got[0].Deleted {
		t.Fatalf("List = %+v; want the one deletion", got)
	}
}

// The log keeps writes through different caches apart, even to the same
// namespace and name, and List answers for one cache only.
func TestLogByCache(t *testing.T) {
	a, b := &fakeCache{"a"}, &fakeCache{"b"}
	ctx := writes.ContextWithLog(context.Background())
	writes.Record(ctx, change(a, cm("ns", "x", "5")))
	writes.Record(ctx, change(a, cm("ns", "y", "6")))
	writes.Record(ctx, change(b, cm("ns", "x", "3"))) // older, but another cache's
	writes.Record(ctx, change(b, cm("ns", "z", "4")))
	if got := loggedRV(t, ctx, a, "ns", "x"); got != "5" {
		t.Fatalf("ns/x through a at %q; want 5", got)
	}
	if got := loggedRV(t, ctx, b, "ns", "x"); got != "3" {
		t.Fatalf("ns/x through b at %q; want 3", got)
	}
	if got := loggedRV(t, ctx, a, "ns", "z"); got != "none" {
		t.Fatalf("ns/z through a at %q; want none, it was written through b", got)
	}
	for _, tc := range []struct {
		cache *fakeCache
		want  []string
	}{{a, []string{"x@5", "y@6"}}, {b, []string{"x@3", "z@4"}}, {&fakeCache{"c"}, nil}} {
		var got []string
		for _, w := range writes.List(ctx, tc.cache) {
			if w.Cache != tc.cache {
				t.Fatalf("List(%s) has a write through %v", tc.cache.name, w.Cache)
			}
			got = append(got, w.Name+"@"+w.ResourceVersion)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Fatalf("List(%s) = %v; want %v", tc.cache.name, got, tc.want)
		}
	}
}

// The log keeps its own copy of a write's Object: changing the object
// given to Record afterwards does not change what Find returns.
func TestLogCopiesTheObject(t *testing.T) {
	c := &fakeCache{"a"}
	ctx := writes.ContextWithLog(context.Background())
	obj := cm("ns", "x", "5")
	obj.Labels = map[string]string{"app": "web"}
	writes.Record(ctx, change(c, obj))
	obj.Data["rv"] = "changed"
	obj.Labels["app"] = "changed"
	obj.ResourceVersion = "99"

	w, ok := writes.Find(ctx, c, "ns", "x")
	if !ok {
		t.Fatal("Find found nothing")
	}
	kept, _ := w.Object.(*corev1.ConfigMap)
	if kept == nil || kept == obj {
		t.Fatalf("Find's Object is %p, the caller's is %p; want a copy", kept, obj)
	}
	if kept.Data["rv"] != "5" || kept.Labels["app"] != "web" || kept.ResourceVersion != "5" {
		t.Fatalf("kept object changed with the caller's: data %v, labels %v, resourceVersion %s",
			kept.Data, kept.Labels, kept.ResourceVersion)
	}
	if ws := writes.List(ctx, c); len(ws) != 1 || ws[0].Object != w.Object {
		t.Fatalf("List = %+v; want the one write Find returned", ws)
	}
}

// Each ContextWithLog is a fresh log: a context made from another does not
// see the other's writes, while contexts derived from one share it.
func TestLogOnePerContext(t *testing.T) {
	c := &fakeCache{"a"}
	first := writes.ContextWithLog(context.Background())
	writes.Record(first, change(c, cm("ns", "x", "5")))
	derived, cancel := context.WithCancel(first)
	defer cancel()
	if got := loggedRV(t, derived, c, "ns", "x"); got != "5" {
		t.Fatalf("a derived context sees ns/x at %q; want 5", got)
	}
	second := writes.ContextWithLog(first)
	if got := loggedRV(t, second, c, "ns", "x"); got != "none" {
		t.Fatalf("a fresh log sees ns/x at %q; want none", got)
	}
	writes.Record(second, change(c, cm("ns", "y", "6")))
	if got := loggedRV(t, first, c, "ns", "y"); got != "none" {
		t.Fatalf("the first log sees the second's ns/y at %q; want none", got)
	}
}

// Record, Find and List may be called from many goroutines at once (run
// with -race); whatever the order the changes of one object are recorded
// in, the newest by resourceVersion is kept.
func TestLogConcurrent(t *testing.T) {
	const goroutines, perGoroutine = 16, 50
	c := &fakeCache{"a"}
	rec := &recorded{}
	ctx := writes.ContextWithLog(writes.ContextWithRecorder(context.Background(), rec))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				rv := strconv.Itoa(1 + g + goroutines*i) // every version once, in no order
				writes.Record(ctx, change(c, cm("ns", "shared", rv)))
				writes.Record(ctx, change(c, cm("ns", fmt.Sprintf("own-%d", g), rv)))
				if _, ok := writes.Find(ctx, c, "ns", "shared"); !ok {
					t.Error("Find lost ns/shared")
					return
				}
				_ = writes.List(ctx, c)
			}
		})
	}
	wg.Wait()
	if got, want := loggedRV(t, ctx, c, "ns", "shared"), strconv.Itoa(goroutines*perGoroutine); got != want {
		t.Fatalf("ns/shared kept at %s; want the newest, %s", got, want)
	}
	for g := range goroutines {
		if got, want := loggedRV(t, ctx, c, "ns", fmt.Sprintf("own-%d", g)), strconv.Itoa(1+g+goroutines*(perGoroutine-1)); got != want {
			t.Fatalf("ns/own-%d kept at %s; want %s", g, got, want)
		}
	}
	if got := len(writes.List(ctx, c)); got != goroutines+1 {
		t.Fatalf("List has %d writes; want %d", got, goroutines+1)
	}
	if got := len(rec.seen()); got != 2*goroutines*perGoroutine {
		t.Fatalf("recorder got %d writes; want %d", got, 2*goroutines*perGoroutine)
	}
}

// A log of many objects (past the few it searches in order) keeps each
// one's latest write by cache, namespace and name, as a log of a few does.
func TestLogOfManyObjects(t *testing.T) {
	a, b := &fakeCache{"a"}, &fakeCache{"b"}
	ctx := writes.ContextWithLog(context.Background())
	const n = 40
	for i := range n {
		writes.Record(ctx, change(a, cm("ns", fmt.Sprint("o", i), "10")))
		writes.Record(ctx, change(b, cm("ns", fmt.Sprint("o", i), "20")))
	}
	for i := range n {
		name := fmt.Sprint("o", i)
		writes.Record(ctx, change(a, cm("ns", name, strconv.Itoa(10+i%2)))) // every other one newer
		writes.Record(ctx, change(b, cm("ns", name, "19")))                 // older: dropped
	}
	for i := range n {
		name := fmt.Sprint("o", i)
		if got, want := loggedRV(t, ctx, a, "ns", name), strconv.Itoa(10+i%2); got != want {
			t.Fatalf("ns/%s through a at %q; want %q", name, got, want)
		}
		if got := loggedRV(t, ctx, b, "ns", name); got != "20" {
			t.Fatalf("ns/%s through b at %q; want 20", name, got)
		}
	}
	if got := loggedRV(t, ctx, a, "ns", "absent"); got != "none" {
		t.Fatalf("an object never written is at %q", got)
	}
	if la, lb := len(writes.List(ctx, a)), len(writes.List(ctx, b)); la != n || lb != n {
		t.Fatalf("List has %d and %d writes; want %d each", la, lb, n)
	}
}
