package writes_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/writes"
)

// fakeCache is a Cache that never shows a write; only its identity
// matters to the log.
type fakeCache struct{ name string }

func (*fakeCache) Shows(writes.Write) bool { return false }

func (*fakeCache) WhenShows(writes.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// recorded is a Recorder that keeps what it is given.
type recorded struct {
	mu     sync.Mutex
	writes []writes.Write
}

func (l *recorded) Record(w writes.Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

func (l *recorded) seen() []writes.Write {
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
func change(c writes.Cache, obj *corev1.ConfigMap) writes.Write {
	return writes.Write{Cache: c, Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID,
		ResourceVersion: obj.ResourceVersion, Object: obj}
}

// Without ContextWithLog nothing is kept: Find and List report nothing,
// while the Recorder still gets every write, without its Object, and the
// caller's Write keeps its own.
func TestRecordWithoutLog(t *testing.T) {
	c := &fakeCache{"a"}
	obj := cm("ns", "x", "5")
	w := change(c, obj)

	writes.Record(context.Background(), w) // no log, no recorder: nothing happens

	rec := &recorded{}
	ctx := writes.ContextWithRecorder(context.Background(), rec)
	writes.Record(ctx, w)
	if got, ok := writes.Find(ctx, c, "ns", "x"); ok {
		t.Fatalf("Find without ContextWithLog = %+v, true; want none", got)
	}
	if got := writes.List(ctx, c); got != nil {
		t.Fatalf("List without ContextWithLog = %+v; want nil", got)
	}
	seen := rec.seen()
	want := w
	want.Object = nil
	if len(seen) != 1 || seen[0] != want {
		t.Fatalf("recorder got %+v; want just %+v (the write without its Object)", seen, want)
	}
	if w.Object != obj {
		t.Fatalf("Record changed the caller's Write: Object %v", w.Object)
	}
}

// A Write without a Cache is ignored: neither kept nor recorded.
func TestRecordWithoutCache(t *testing.T) {
	rec := &recorded{}
	ctx := writes.ContextWithLog(writes.ContextWithRecorder(context.Background(), rec))
	w := change(nil, cm("ns", "x", "5"))
	writes.Record(ctx, w)
	if got, ok := writes.Find(ctx, nil, "ns", "x"); ok {
		t.Fatalf("Find(nil cache) = %+v; want none", got)
	}
	if got := writes.List(ctx, nil); got != nil {
		t.Fatalf("List(nil cache) = %+v; want nil", got)
	}
	if got := rec.seen(); len(got) != 0 {
		t.Fatalf("recorder got %+v; want nothing", got)
	}
}

// uncomparable is a Cache that cannot be a map key or be compared.
type uncomparable map[string]bool

func (uncomparable) Shows(writes.Write) bool { return false }
func (uncomparable) WhenShows(writes.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// A write through a cache that is not comparable is ignored, not a panic.
func TestRecordOfAnUncomparableCache(t *testing.T) {
	rec := &recorded{}
	ctx := writes.ContextWithLog(writes.ContextWithRecorder(context.Background(), rec))
	c := uncomparable{}
	writes.Record(ctx, change(c, cm("ns", "x", "5")))
	if got := rec.seen(); len(got) != 0 {
		t.Fatalf("recorder got %+v; want nothing", got)
	}
}

// A write recorded without a Recorder is counted as unattributed; one with
// a Recorder, or without a cache (not recorded at all), is not.
func TestRecordCountsUnattributedWrites(t *testing.T) {
	c := &fakeCache{"a"}
	before := writes.Unattributed()
	writes.Record(context.Background(), change(c, cm("ns", "x", "5")))
	writes.Record(writes.ContextWithLog(context.Background()), change(c, cm("ns", "x", "6")))
	if got := writes.Unattributed() - before; got != 2 {
		t.Fatalf("two writes without a Recorder counted %d", got)
	}
	writes.Record(writes.ContextWithRecorder(context.Background(), &recorded{}), change(c, cm("ns", "x", "7")))
	writes.Record(context.Background(), change(nil, cm("ns", "x", "8")))
	if got := writes.Unattributed() - before; got != 2 {
		t.Fatalf("a recorded write, or one without a cache, counted: %d", got)
	}
}
