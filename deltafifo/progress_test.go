package deltafifo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// progressLog records WithProgress calls and checks that each carries what
// LastStoreSyncResourceVersion returns at that moment (the callback may
// call the FIFO: it runs without its lock).
type progressLog struct {
	t   *testing.T
	f   *FIFO[CM]
	mu  sync.Mutex
	rvs []string
}

func newProgressFIFO(t *testing.T, known KnownObjects[CM]) (*FIFO[CM], *progressLog) {
	l := &progressLog{t: t}
	l.f = New[CM](known, WithProgress(l.record))
	return l.f, l
}

func (l *progressLog) record(rv string) {
	if now := l.f.LastStoreSyncResourceVersion(); now != rv {
		l.t.Errorf("progress reported %q while the store is at %q", rv, now)
	}
	l.mu.Lock()
	l.rvs = append(l.rvs, rv)
	l.mu.Unlock()
}

// take returns the calls since the last take.
func (l *progressLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.rvs
	l.rvs = nil
	return out
}

func (l *progressLog) expect(what string, want ...string) {
	l.t.Helper()
	if got := l.take(); !slices.Equal(got, want) {
		l.t.Fatalf("%s: progress calls %q, want %q", what, got, want)
	}
}

func TestProgressAfterEachProcessedBatchAndIdleBookmark(t *testing.T) {
	f, log := newProgressFIFO(t, &store{objs: map[string]CM{}})
	must(t, f.Replace([]CM{cm("a", "5")}, "5"))
	must(t, f.Add(cm("b", "6")))
	f.Bookmark("7")
	log.expect("list, event and bookmark queued, nothing processed")

	pop(t, f)
	log.expect("the list processed, b (queued at 5) pending", "5")
	pop(t, f)
	log.expect("b processed: the bookmark behind it counts now", "7")

	f.Bookmark("9")
	log.expect("a bookmark while idle", "9")

	must(t, f.Update(cm("a", "10")))
	log.expect("an event is queued, not processed")
	pop(t, f)
	log.expect("the event processed", "10")
}

func TestProgressWaitsForTheBatchInFlight(t *testing.T) {
	f, log := newProgressFIFO(t, nil)
	must(t, f.Add(cm("a", "3")))
	err := f.Pop(context.Background(), func(Batch[CM]) error {
		f.Bookmark("4") // arrives while a is being applied
		log.expect("a bookmark during processing")
		return nil
	})
	must(t, err)
	log.expect("after processing, the bookmark too", "4")
}

func TestProgressNotReportedOnRequeue(t *testing.T) {
	f, log := newProgressFIFO(t, nil)
	must(t, f.Add(cm("a", "3")))
	err := f.Pop(context.Background(), func(Batch[CM]) error { return fmt.Errorf("later: %w", ErrRequeue) })
	if err == nil {
		t.Fatal("Pop did not return the requeue error")
	}
	log.expect("a requeued batch")
	pop(t, f)
	log.expect("processed at last", "3")
}

func TestProgressOnRelists(t *testing.T) {
	known := &store{objs: map[string]CM{}}
	f, log := newProgressFIFO(t, known)
	must(t, f.Replace(nil, "7"))
	pop(t, f)
	log.expect("an empty initial list", "7")

	known.set("ns/a", cm("a", "8"))
	must(t, f.Replace([]CM{cm("b", "12")}, "12")) // a deleted, b added
	if got, _ := pop(t, f); got != "ns/b:Replaced(12) ns/a:Deleted(8)?" {
		t.Fatalf("relist batch: %q", got)
	}
	log.expect("a relist", "12")
}
