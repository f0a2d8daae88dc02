package deltafifo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// popBatch pops one batch and returns it described, with its flags.
func popBatch(t *testing.T, f *FIFO[CM]) (got string, initial, more bool) {
	t.Helper()
	if err := f.Pop(context.Background(), func(b Batch[CM]) error {
		got, initial, more = describeBatch(b), b.InitialList, b.More
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got, initial, more
}

// applyTo pops one batch into known, as an informer would.
func applyTo(t *testing.T, f *FIFO[CM], known *store) {
	t.Helper()
	must(t, f.Pop(context.Background(), func(b Batch[CM]) error {
		for _, it := range b.Items {
			d := it.Deltas[len(it.Deltas)-1]
			known.mu.Lock()
			if d.Type == Deleted {
				delete(known.objs, it.Key)
			} else {
				known.objs[it.Key] = d.Object
			}
			known.mu.Unlock()
		}
		return nil
	}))
}

func TestFirstListInPartsSyncsAtItsEnd(t *testing.T) {
	known := &store{objs: map[string]CM{}}
	f := New[CM](known)
	must(t, f.AppendList([]CM{cm("a", "1"), cm("b", "2")}, true))
	if got, initial, more := popBatch(t, f); got != "ns/a:Replaced(1) ns/b:Replaced(2)" || !initial || !more {
		t.Fatalf("first part: %q initial=%v more=%v", got, initial, more)
	}
	if f.HasSynced() {
		t.Fatal("HasSynced after a part: the list has not ended")
	}
	known.set("ns/a", cm("a", "1")) // the consumer holds the first part now
	known.set("ns/b", cm("b", "2"))
	// Two parts before the consumer pops are handed over together.
	must(t, f.AppendList([]CM{cm("c", "3")}, false))
	must(t, f.AppendList([]CM{cm("d", "4")}, false))
	if got, _, more := popBatch(t, f); got != "ns/c:Replaced(3) ns/d:Replaced(4)" || !more {
		t.Fatalf("next parts: %q more=%v", got, more)
	}
	// The end: the parts' objects are listed, not deleted.
	must(t, f.Replace([]CM{cm("e", "5")}, "9"))
	if got, initial, more := popBatch(t, f); got != "ns/e:Replaced(5)" || !initial || more {
		t.Fatalf("end of the list: %q initial=%v more=%v", got, initial, more)
	}
	if !f.HasSynced() || f.LastStoreSyncResourceVersion() != "9" {
		t.Fatalf("after the end: HasSynced %v, store RV %q", f.HasSynced(), f.LastStoreSyncResourceVersion())
	}
}

func TestListEndingBeforeItsPartsArePoppedIsOneBatch(t *testing.T) {
	f := New[CM](&store{objs: map[string]CM{}})
	must(t, f.AppendList([]CM{cm("a", "1")}, true))
	must(t, f.Replace([]CM{cm("b", "2")}, "5"))
	if got, initial, more := popBatch(t, f); got != "ns/a:Replaced(1) ns/b:Replaced(2)" || !initial || more {
		t.Fatalf("%q initial=%v more=%v", got, initial, more)
	}
	if !f.HasSynced() {
		t.Fatal("not synced after the whole list")
	}
}

// A list that fails half way and starts over must still find what was
// deleted in between: the first attempt's objects are known by then.
func TestRestartedListInfersDeletionsOfEarlierParts(t *testing.T) {
	known := &store{objs: map[string]CM{}}
	f := New[CM](known)
	must(t, f.AppendList([]CM{cm("a", "1"), cm("b", "1"), cm("c", "1")}, true))
	applyTo(t, f, known)
	must(t, f.AppendList([]CM{cm("x", "1")}, true)) // pending when the list starts over
	// Start over: c was deleted meanwhile, x too.
	must(t, f.AppendList([]CM{cm("a", "2")}, true))
	must(t, f.Replace([]CM{cm("b", "2")}, "7"))
	got, initial, more := popBatch(t, f)
	want := "ns/x:Replaced(1),Deleted(1)? ns/a:Replaced(2) ns/b:Replaced(2) ns/c:Deleted(1)?"
	if got != want || !initial || more {
		t.Fatalf("restarted list:\n got %q initial=%v more=%v\nwant %q", got, initial, more, want)
	}
}

func TestRequeuedPartStaysAPart(t *testing.T) {
	f := New[CM](&store{objs: map[string]CM{}})
	must(t, f.AppendList([]CM{cm("a", "1"), cm("b", "2")}, true))
	err := f.Pop(context.Background(), func(Batch[CM]) error { return fmt.Errorf("later: %w", ErrRequeue) })
	if !errors.Is(err, ErrRequeue) {
		t.Fatalf("Pop: %v", err)
	}
	if got, initial, more := popBatch(t, f); got != "ns/a:Replaced(1) ns/b:Replaced(2)" || !initial || !more {
		t.Fatalf("requeued part: %q initial=%v more=%v", got, initial, more)
	}
	if f.HasSynced() {
		t.Fatal("a requeued part synced the FIFO")
	}
}

func TestAppendListNamesObjectsWithoutKeys(t *testing.T) {
	f := New[CM](nil)
	err := f.AppendList([]CM{cm("", "1"), cm("ok", "2")}, true)
	if err == nil || !strings.Contains(err.Error(), "AppendList") {
		t.Fatalf("err = %v, want one naming AppendList", err)
	}
	if got, _, _ := popBatch(t, f); got != "ns/ok:Replaced(2)" {
		t.Fatalf("the rest of the part: %q", got)
	}
}
