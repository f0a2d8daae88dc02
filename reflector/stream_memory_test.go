package reflector

import (
	"runtime"
	"testing"
	"weak"

	"k8s.io/apimachinery/pkg/watch"
)

// The objects of a streamed list belong to the store once it has them: the
// reflector, which goes on watching in the same call, keeps none of them
// (a store that keeps objects encoded would otherwise hold every listed
// object twice for as long as the watch lasts).
func TestStreamedListIsNotKeptWhileWatching(t *testing.T) {
	lw := streamingLW{newFakeLW()}
	w := lw.onWatch(nil)
	h := start(t, lw)
	lw.next(t)
	listed := weak.Make(cm("a", "5"))
	w.Add(listed.Value())
	w.Action(watch.Bookmark, bookmark("9", true).Object)
	h.store.expect(t, "replace 9 a")
	w.Modify(cm("b", "10")) // the watch after the list runs
	h.store.expect(t, "update b 10")
	for range 3 {
		runtime.GC()
	}
	if listed.Value() != nil {
		t.Fatal("the reflector still holds a listed object while it watches")
	}
}
