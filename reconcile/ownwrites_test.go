package reconcile_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/reconcile"
)

// fakeCache is a WriteCache that never shows a write; only its identity
// matters to the log.
type fakeCache struct{ name string }

func (*fakeCache) Shows(reconcile.Write) bool { return false }

func (*fakeCache) WhenShows(reconcile.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// writeLog is a WriteRecorder that keeps what it is given.
type writeLog struct {
	mu     sync.Mutex
	writes []reconcile.Write
}

func (l *writeLog) RecordWrite(w reconcile.Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

func (l *writeLog) seen() []reconcile.Write {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.writes)
}

func cm(ns, name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), ResourceVersion: rv},
		Data:       map[string]string{"rv": rv},
	}
}

// change is the Write package client records for an update returning obj.
func change(c reconcile.WriteCache, obj *corev1.ConfigMap) reconcile.Write {
	return reconcile.Write{Cache: c, Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID,
		ResourceVersion: obj.ResourceVersion, Object: obj}
}

// ownRV returns the resourceVersion of the write the log keeps for
// namespace/name through c, "deleted" for a deletion, "none" for none.
func ownRV(t *testing.T, ctx context.Context, c reconcile.WriteCache, ns, name string) string {
	t.Helper()
	w, ok := reconcile.OwnWrite(ctx, c, ns, name)
	switch {
	case !ok:
		return "none"
	case w.Deleted:
		return "deleted"
	}
	obj, isCM := w.Object.(*corev1.ConfigMap)
	if !isCM || obj.ResourceVersion != w.ResourceVersion || obj.Data["rv"] != w.ResourceVersion {
		t.Fatalf("OwnWrite(%s/%s) = %+v: its Object is not the one written with resourceVersion %s", ns, name, w, w.ResourceVersion)
	}
	return w.ResourceVersion
}

// Without WithOwnWrites nothing is kept: OwnWrite and OwnWrites report
// nothing, while the WriteRecorder still gets every write, without its
// Object, and the caller's Write keeps its own.
func TestRecordWriteWithoutOwnWrites(t *testing.T) {
	c := &fakeCache{"a"}
	obj := cm("ns", "x", "5")
	w := change(c, obj)

	reconcile.RecordWrite(context.Background(), w) // no log, no recorder: nothing happens

	rec := &writeLog{}
	ctx := reconcile.WithWriteRecorder(context.Background(), rec)
	reconcile.RecordWrite(ctx, w)
	if got, ok := reconcile.OwnWrite(ctx, c, "ns", "x"); ok {
		t.Fatalf("OwnWrite without WithOwnWrites = %+v, true; want none", got)
	}
	if got := reconcile.OwnWrites(ctx, c); got != nil {
		t.Fatalf("OwnWrites without WithOwnWrites = %+v; want nil", got)
	}
	seen := rec.seen()
	want := w
	want.Object = nil
	if len(seen) != 1 || seen[0] != want {
		t.Fatalf("recorder got %+v; want just %+v (the write without its Object)", seen, want)
	}
	if w.Object != obj {
		t.Fatalf("RecordWrite changed the caller's Write: Object %v", w.Object)
	}
}

// With WithOwnWrites the log keeps each object's latest write, by
// namespace and name; a change older by resourceVersion than the kept
// one is dropped, and the recorder still gets every write.
func TestOwnWritesKeepTheLatestChange(t *testing.T) {
	c := &fakeCache{"a"}
	rec := &writeLog{}
	ctx := reconcile.WithOwnWrites(reconcile.WithWriteRecorder(context.Background(), rec))
	if got, ok := reconcile.OwnWrite(ctx, c, "ns", "x"); ok {
		t.Fatalf("OwnWrite of a fresh log = %+v, true; want none", got)
	}
	if got := reconcile.OwnWrites(ctx, c); got != nil {
		t.Fatalf("OwnWrites of a fresh log = %+v; want nil", got)
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
		reconcile.RecordWrite(ctx, change(c, step.obj))
		if got := ownRV(t, ctx, c, "ns", "x"); got != step.want {
			t.Fatalf("after a write of %s/%s at %s, ns/x is at %q; want %q",
				step.obj.Namespace, step.obj.Name, step.obj.ResourceVersion, got, step.want)
		}
	}
	if got := ownRV(t, ctx, c, "ns", "y"); got != "1" {
		t.Fatalf("ns/y at %q; want 1", got)
	}
	if got := ownRV(t, ctx, c, "other", "x"); got != "2" {
		t.Fatalf("other/x at %q; want 2", got)
	}
	if got := len(reconcile.OwnWrites(ctx, c)); got != 3 {
		t.Fatalf("OwnWrites has %d writes; want 3, one per object", got)
	}
	if got := len(rec.seen()); got != 8 {
		t.Fatalf("recorder got %d writes; want all 8, dropped or not", got)
	}
}

// Where either resourceVersion is not a well-formed number (KEP-5504), the
// log cannot tell which is newer and the later record wins.
func TestOwnWritesLaterWinsWithoutComparableVersions(t *testing.T) {
	for _, tc := range []struct{ first, second string }{
		{"7", "abc"},
		{"abc", "7"},
		{"7", "06"}, // a leading zero is not well formed
		{"7", ""},
		{"", "3"},
		{"b", "a"},
	} {
		c := &fakeCache{"a"}
		ctx := reconcile.WithOwnWrites(context.Background())
		reconcile.RecordWrite(ctx, change(c, cm("ns", "x", tc.first)))
		reconcile.RecordWrite(ctx, change(c, cm("ns", "x", tc.second)))
		if got := ownRV(t, ctx, c, "ns", "x"); got != tc.second {
			t.Errorf("writes at %q then %q: kept %q; want the later", tc.first, tc.second, got)
		}
	}
}

// A deletion replaces the change kept, and a change after a deletion (the
// object made again) replaces it.
func TestOwnWritesDeletionAndChangeReplaceEachOther(t *testing.T) {
	c := &fakeCache{"a"}
	ctx := reconcile.WithOwnWrites(context.Background())
	reconcile.RecordWrite(ctx, change(c, cm("ns", "x", "9")))
	reconcile.RecordWrite(ctx, reconcile.Write{Cache: c, Namespace: "ns", Name: "x", UID: "uid-x", Deleted: true})
	w, ok := reconcile.OwnWrite(ctx, c, "ns", "x")
	if !ok || !w.Deleted || w.Object != nil || w.UID != "uid-x" {
		t.Fatalf("after a change then a deletion: OwnWrite = %+v, %v; want the deletion", w, ok)
	}
	again := cm("ns", "x", "12")
	again.UID = "uid-x2"
	reconcile.RecordWrite(ctx, change(c, again))
	if got := ownRV(t, ctx, c, "ns", "x"); got != "12" {
		t.Fatalf("after a deletion then a create at 12: kept %q; want 12", got)
	}
	if w, _ := reconcile.OwnWrite(ctx, c, "ns", "x"); w.UID != "uid-x2" {
		t.Fatalf("kept UID %q; want the new object's", w.UID)
	}
	reconcile.RecordWrite(ctx, reconcile.Write{Cache: c, Namespace: "ns", Name: "x", UID: "uid-x2", ResourceVersion: "13", Deleted: true})
	if got := ownRV(t, ctx, c, "ns", "x"); got != "deleted" {
		t.Fatalf("after a change at 12 then a deletion at 13: kept %q; want the deletion", got)
	}
	if got := reconcile.OwnWrites(ctx, c); len(got) != 1 || !got[0].Deleted {
		t.Fatalf("OwnWrites = %+v; want the one deletion", got)
	}
}

// The log keeps writes through different caches apart, even to the same
// namespace and name, and OwnWrites answers for one cache only.
func TestOwnWritesByCache(t *testing.T) {
	a, b := &fakeCache{"a"}, &fakeCache{"b"}
	ctx := reconcile.WithOwnWrites(context.Background())
	reconcile.RecordWrite(ctx, change(a, cm("ns", "x", "5")))
	reconcile.RecordWrite(ctx, change(a, cm("ns", "y", "6")))
	reconcile.RecordWrite(ctx, change(b, cm("ns", "x", "3"))) // older, but another cache's
	reconcile.RecordWrite(ctx, change(b, cm("ns", "z", "4")))
	if got := ownRV(t, ctx, a, "ns", "x"); got != "5" {
		t.Fatalf("ns/x through a at %q; want 5", got)
	}
	if got := ownRV(t, ctx, b, "ns", "x"); got != "3" {
		t.Fatalf("ns/x through b at %q; want 3", got)
	}
	if got := ownRV(t, ctx, a, "ns", "z"); got != "none" {
		t.Fatalf("ns/z through a at %q; want none, it was written through b", got)
	}
	for _, tc := range []struct {
		cache *fakeCache
		want  []string
	}{{a, []string{"x@5", "y@6"}}, {b, []string{"x@3", "z@4"}}, {&fakeCache{"c"}, nil}} {
		var got []string
		for _, w := range reconcile.OwnWrites(ctx, tc.cache) {
			if w.Cache != tc.cache {
				t.Fatalf("OwnWrites(%s) has a write through %v", tc.cache.name, w.Cache)
			}
			got = append(got, w.Name+"@"+w.ResourceVersion)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Fatalf("OwnWrites(%s) = %v; want %v", tc.cache.name, got, tc.want)
		}
	}
}

// The log keeps its own copy of a write's Object: changing the object
// given to RecordWrite afterwards does not change what OwnWrite returns.
func TestOwnWritesCopyTheObject(t *testing.T) {
	c := &fakeCache{"a"}
	ctx := reconcile.WithOwnWrites(context.Background())
	obj := cm("ns", "x", "5")
	obj.Labels = map[string]string{"app": "web"}
	reconcile.RecordWrite(ctx, change(c, obj))
	obj.Data["rv"] = "changed"
	obj.Labels["app"] = "changed"
	obj.ResourceVersion = "99"

	w, ok := reconcile.OwnWrite(ctx, c, "ns", "x")
	if !ok {
		t.Fatal("OwnWrite found nothing")
	}
	kept, _ := w.Object.(*corev1.ConfigMap)
	if kept == nil || kept == obj {
		t.Fatalf("OwnWrite's Object is %p, the caller's is %p; want a copy", kept, obj)
	}
	if kept.Data["rv"] != "5" || kept.Labels["app"] != "web" || kept.ResourceVersion != "5" {
		t.Fatalf("kept object changed with the caller's: data %v, labels %v, resourceVersion %s",
			kept.Data, kept.Labels, kept.ResourceVersion)
	}
	if ws := reconcile.OwnWrites(ctx, c); len(ws) != 1 || ws[0].Object != w.Object {
		t.Fatalf("OwnWrites = %+v; want the one write OwnWrite returned", ws)
	}
}

// A Write without a Cache is ignored: neither kept nor recorded.
func TestRecordWriteWithoutCache(t *testing.T) {
	rec := &writeLog{}
	ctx := reconcile.WithOwnWrites(reconcile.WithWriteRecorder(context.Background(), rec))
	w := change(nil, cm("ns", "x", "5"))
	reconcile.RecordWrite(ctx, w)
	if got, ok := reconcile.OwnWrite(ctx, nil, "ns", "x"); ok {
		t.Fatalf("OwnWrite(nil cache) = %+v; want none", got)
	}
	if got := reconcile.OwnWrites(ctx, nil); got != nil {
		t.Fatalf("OwnWrites(nil cache) = %+v; want nil", got)
	}
	if got := rec.seen(); len(got) != 0 {
		t.Fatalf("recorder got %+v; want nothing", got)
	}
}

// uncomparable is a WriteCache that cannot be a map key or be compared.
type uncomparable map[string]bool

func (uncomparable) Shows(reconcile.Write) bool { return false }
func (uncomparable) WhenShows(reconcile.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// A write through a cache that is not comparable is ignored, not a panic.
func TestRecordWriteOfAnUncomparableCache(t *testing.T) {
	rec := &writeLog{}
	ctx := reconcile.WithOwnWrites(reconcile.WithWriteRecorder(context.Background(), rec))
	c := uncomparable{}
	reconcile.RecordWrite(ctx, change(c, cm("ns", "x", "5")))
	if got := rec.seen(); len(got) != 0 {
		t.Fatalf("recorder got %+v; want nothing", got)
	}
}

// Each WithOwnWrites is a fresh log: a context made from another does not
// see the other's writes, while contexts derived from one share it.
func TestOwnWritesOneLogPerContext(t *testing.T) {
	c := &fakeCache{"a"}
	first := reconcile.WithOwnWrites(context.Background())
	reconcile.RecordWrite(first, change(c, cm("ns", "x", "5")))
	derived, cancel := context.WithCancel(first)
	defer cancel()
	if got := ownRV(t, derived, c, "ns", "x"); got != "5" {
		t.Fatalf("a derived context sees ns/x at %q; want 5", got)
	}
	second := reconcile.WithOwnWrites(first)
	if got := ownRV(t, second, c, "ns", "x"); got != "none" {
		t.Fatalf("a fresh log sees ns/x at %q; want none", got)
	}
	reconcile.RecordWrite(second, change(c, cm("ns", "y", "6")))
	if got := ownRV(t, first, c, "ns", "y"); got != "none" {
		t.Fatalf("the first log sees the second's ns/y at %q; want none", got)
	}
}

// RecordWrite, OwnWrite and OwnWrites may be called from many goroutines
// at once (run with -race); whatever the order the changes of one object
// are recorded in, the newest by resourceVersion is kept.
func TestOwnWritesConcurrent(t *testing.T) {
	const goroutines, perGoroutine = 16, 50
	c := &fakeCache{"a"}
	rec := &writeLog{}
	ctx := reconcile.WithOwnWrites(reconcile.WithWriteRecorder(context.Background(), rec))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				rv := strconv.Itoa(1 + g + goroutines*i) // every version once, in no order
				reconcile.RecordWrite(ctx, change(c, cm("ns", "shared", rv)))
				reconcile.RecordWrite(ctx, change(c, cm("ns", fmt.Sprintf("own-%d", g), rv)))
				if _, ok := reconcile.OwnWrite(ctx, c, "ns", "shared"); !ok {
					t.Error("OwnWrite lost ns/shared")
					return
				}
				_ = reconcile.OwnWrites(ctx, c)
			}
		})
	}
	wg.Wait()
	if got, want := ownRV(t, ctx, c, "ns", "shared"), strconv.Itoa(goroutines*perGoroutine); got != want {
		t.Fatalf("ns/shared kept at %s; want the newest, %s", got, want)
	}
	for g := range goroutines {
		if got, want := ownRV(t, ctx, c, "ns", fmt.Sprintf("own-%d", g)), strconv.Itoa(1+g+goroutines*(perGoroutine-1)); got != want {
			t.Fatalf("ns/own-%d kept at %s; want %s", g, got, want)
		}
	}
	if got := len(reconcile.OwnWrites(ctx, c)); got != goroutines+1 {
		t.Fatalf("OwnWrites has %d writes; want %d", got, goroutines+1)
	}
	if got := len(rec.seen()); got != 2*goroutines*perGoroutine {
		t.Fatalf("recorder got %d writes; want %d", got, 2*goroutines*perGoroutine)
	}
}
