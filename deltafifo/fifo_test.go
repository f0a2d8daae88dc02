package deltafifo

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type CM = *corev1.ConfigMap

func cm(name, rv string) CM {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// store is a KnownObjects fake: a map the test controls.
type store struct {
	mu      sync.Mutex
	objs    map[string]CM
	listing func() // called from ListKeys, to observe when it runs
}

func (s *store) ListKeys() []string {
	if s.listing != nil {
		s.listing()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *store) GetByKey(key string) (CM, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objs[key]
	return o, ok
}

func (s *store) set(key string, o CM) {
	s.mu.Lock()
	s.objs[key] = o
	s.mu.Unlock()
}

// describe renders a batch as "key:Type(rv)[?] ..." for compact assertions;
// "?" marks FinalStateUnknown and "-" a missing object.
func describeBatch(b Batch[CM]) string {
	var parts []string
	for _, it := range b.Items {
		var ds []string
		for _, d := range it.Deltas {
			rv := "-"
			if d.Object != nil {
				rv = d.Object.ResourceVersion
			}
			s := fmt.Sprintf("%s(%s)", d.Type, rv)
			if d.FinalStateUnknown {
				s += "?"
			}
			ds = append(ds, s)
		}
		parts = append(parts, it.Key+":"+strings.Join(ds, ","))
	}
	return strings.Join(parts, " ")
}

func pop(t *testing.T, f *FIFO[CM]) (string, bool) {
	t.Helper()
	var got string
	var initial bool
	if err := f.Pop(context.Background(), func(b Batch[CM]) error {
		got, initial = describeBatch(b), b.InitialList
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got, initial
}

func TestKeysInFIFOOrderWithAllTheirDeltas(t *testing.T) {
	f := New[CM](nil)
	must(t, f.Add(cm("a", "1")))
	must(t, f.Add(cm("b", "2")))
	must(t, f.Update(cm("a", "3")))
	must(t, f.Delete(cm("a", "4")))
	must(t, f.Delete(cm("a", "4"))) // a duplicate delete collapses
	for _, want := range []string{"ns/a:Added(1),Updated(3),Deleted(4)", "ns/b:Added(2)"} {
		if got, _ := pop(t, f); got != want {
			t.Fatalf("popped %q, want %q", got, want)
		}
	}
	if f.Len() != 0 {
		t.Fatalf("Len = %d after popping everything", f.Len())
	}
}

func TestReplaceIsOneBatchWithTombstones(t *testing.T) {
	known := &store{objs: map[string]CM{"ns/gone": cm("gone", "1"), "ns/kept": cm("kept", "1")}}
	f := New[CM](known)
	must(t, f.Add(cm("queued-then-gone", "5")))
	must(t, f.Replace([]CM{cm("kept", "1"), cm("new", "6")}, "10"))
	must(t, f.Add(cm("after", "11"))) // not part of the relist batch

	got, initial := pop(t, f)
	want := "ns/queued-then-gone:Added(5),Deleted(5)? ns/kept:Replaced(1) ns/new:Replaced(6) ns/gone:Deleted(1)?"
	if got != want || !initial {
		t.Fatalf("relist batch:\n got %q (initial %v)\nwant %q (initial true)", got, initial, want)
	}
	if got, initial := pop(t, f); got != "ns/after:Added(11)" || initial {
		t.Fatalf("after the batch: %q initial=%v", got, initial)
	}
	if !f.HasSynced() {
		t.Fatal("HasSynced false after the initial batch was processed")
	}
	// A second relist is not initial; a known key the consumer has no state
	// for still gets a tombstone.
	known.set("ns/stateless", nil)
	must(t, f.Replace(nil, "12"))
	if got, initial := pop(t, f); initial || !strings.Contains(got, "ns/stateless:Deleted(-)?") {
		t.Fatalf("second relist: %q initial=%v", got, initial)
	}
}

func TestEmptyInitialListSyncsOnlyAfterProcessing(t *testing.T) {
	f := New[CM](&store{objs: map[string]CM{}})
	must(t, f.Replace(nil, "7"))
	var syncedDuring bool
	err := f.Pop(context.Background(), func(b Batch[CM]) error {
		if len(b.Items) != 0 || !b.InitialList {
			t.Errorf("empty initial list: %+v", b)
		}
		syncedDuring = f.HasSynced()
		return nil
	})
	must(t, err)
	if syncedDuring || !f.HasSynced() {
		t.Fatalf("HasSynced during processing = %v (want false), after = %v (want true)", syncedDuring, f.HasSynced())
	}
	if rv := f.LastStoreSyncResourceVersion(); rv != "7" {
		t.Fatalf("store RV after empty list = %q", rv)
	}
}

func TestRequeuePutsItemsBackInFront(t *testing.T) {
	f := New[CM](nil)
	must(t, f.Add(cm("a", "1")))
	must(t, f.Add(cm("b", "2")))
	err := f.Pop(context.Background(), func(Batch[CM]) error {
		must(t, f.Update(cm("a", "3"))) // arrives while a is being processed
		return fmt.Errorf("not now: %w", ErrRequeue)
	})
	if !errors.Is(err, ErrRequeue) {
		t.Fatalf("Pop returned %v", err)
	}
	if got, _ := pop(t, f); got != "ns/a:Added(1),Updated(3)" {
		t.Fatalf("after requeue: %q", got)
	}
	if got, _ := pop(t, f); got != "ns/b:Added(2)" {
		t.Fatalf("then: %q", got)
	}
}

func TestResyncSkipsQueuedKeys(t *testing.T) {
	known := &store{objs: map[string]CM{"ns/a": cm("a", "1"), "ns/b": cm("b", "1")}}
	f := New[CM](known)
	must(t, f.Update(cm("a", "2")))
	must(t, f.Resync())
	if got, _ := pop(t, f); got != "ns/a:Updated(2)" {
		t.Fatalf("first: %q", got)
	}
	if got, _ := pop(t, f); got != "ns/b:Sync(1)" {
		t.Fatalf("second: %q", got)
	}
}

func TestKeyErrorNamesTheObject(t *testing.T) {
	f := New[CM](nil)
	err := f.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "web-"}})
	if err == nil || !strings.Contains(err.Error(), `"web-"`) || !strings.Contains(err.Error(), "no name") {
		t.Fatalf("Add of a nameless object: %v", err)
	}
	err = f.Replace([]CM{cm("ok", "1"), {}}, "2")
	if err == nil || f.Len() != 1 {
		t.Fatalf("Replace with a nameless object: err=%v len=%d (want an error and the valid object queued)", err, f.Len())
	}
}

func TestStoreResourceVersionWatermark(t *testing.T) {
	f := New[CM](nil)
	must(t, f.Replace([]CM{cm("a", "5")}, "5"))
	must(t, f.Add(cm("b", "6")))
	f.Bookmark("9")
	if rv := f.LastStoreSyncResourceVersion(); rv != "" {
		t.Fatalf("nothing processed yet, store RV = %q", rv)
	}
	err := f.Pop(context.Background(), func(Batch[CM]) error {
		if rv := f.LastStoreSyncResourceVersion(); rv != "" {
			t.Errorf("while the list is applied, store RV = %q", rv)
		}
		return nil
	})
	must(t, err)
	if rv := f.LastStoreSyncResourceVersion(); rv != "5" {
		t.Fatalf("after the list, b (queued at 5) pending: store RV = %q, want 5", rv)
	}
	pop(t, f)
	if rv := f.LastStoreSyncResourceVersion(); rv != "9" {
		t.Fatalf("all processed, bookmark 9: store RV = %q", rv)
	}
}

func TestReplaceWaitsForTheBatchInFlight(t *testing.T) {
	var processing atomic.Bool
	known := &store{objs: map[string]CM{}}
	known.listing = func() {
		if processing.Load() {
			t.Error("Replace read the known objects while a batch was being applied")
		}
	}
	f := New[CM](known)
	must(t, f.Add(cm("x", "1")))
	started, release, replaced := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		must(t, f.Pop(context.Background(), func(b Batch[CM]) error {
			processing.Store(true)
			close(started)
			<-release
			known.set("ns/x", b.Items[0].Deltas[0].Object) // the consumer stores x
			processing.Store(false)
			return nil
		}))
	}()
	<-started
	go func() { replaced <- f.Replace(nil, "2") }() // x was deleted meanwhile
	for range 100 {
		runtime.Gosched() // give Replace every chance to run too early
	}
	close(release)
	must(t, <-replaced)
	if got, _ := pop(t, f); got != "ns/x:Deleted(1)?" {
		t.Fatalf("x must be deleted by the relist: %q", got)
	}
}

func TestPopReturnsOnCancelAndClose(t *testing.T) {
	f := New[CM](nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- f.Pop(ctx, func(Batch[CM]) error { return nil }) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Pop after cancel: %v", err)
	}
	go func() { errc <- f.Pop(context.Background(), func(Batch[CM]) error { return nil }) }()
	f.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("Pop after Close: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

func TestSecondReplaceBeforePopSeesTheFirst(t *testing.T) {
	f := New[CM](&store{objs: map[string]CM{}})
	must(t, f.Replace([]CM{cm("a", "1"), cm("b", "2")}, "2")) // direct fast path
	must(t, f.Update(cm("a", "3")))
	must(t, f.Replace([]CM{cm("a", "4")}, "5")) // b vanished before anyone popped
	got, initial := pop(t, f)
	want := "ns/a:Replaced(1),Updated(3),Replaced(4) ns/b:Replaced(2),Deleted(2)?"
	if got != want || !initial {
		t.Fatalf("got %q (initial %v), want %q (initial true)", got, initial, want)
	}
	if f.Len() != 0 {
		t.Fatalf("left over: %d", f.Len())
	}
}
