package reflector

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

// partStore is a recStore that takes lists in parts.
type partStore struct{ *recStore }

func (s partStore) AppendList(part []CM, first bool) error {
	return s.rec(fmt.Sprintf("part first=%v %d from %s", first, len(part), part[0].Name))
}

func (s partStore) Replace(list []CM, rv string) error {
	return s.rec(fmt.Sprintf("replace %s %d", rv, len(list)))
}

func TestFirstStreamedListArrivesInParts(t *testing.T) {
	lw := streamingLW{newFakeLW()}
	w1 := lw.onWatch(nil)
	w2 := lw.onWatch(nil)
	h := startWith(t, lw, func(s *recStore) Store[CM] { return partStore{s} })
	lw.next(t)
	n := 2*listPart + 3
	for i := range n {
		w1.Add(cm(fmt.Sprint("o", i), "5"))
	}
	w1.Action(watch.Bookmark, bookmark("9", true).Object)
	h.store.expect(t, fmt.Sprintf("part first=true %d from o0", listPart))
	h.store.expect(t, fmt.Sprintf("part first=false %d from o%d", listPart, listPart))
	h.store.expect(t, "replace 9 3")
	// A relist comes whole, to be applied atomically.
	w1.Error(&gone.ErrStatus)
	lw.next(t)
	for i := range listPart + 1 {
		w2.Add(cm(fmt.Sprint("o", i), "12"))
	}
	w2.Action(watch.Bookmark, bookmark("12", true).Object)
	h.store.expect(t, fmt.Sprintf("replace 12 %d", listPart+1))
}

func TestFirstPagedListArrivesPageByPage(t *testing.T) {
	lw := newFakeLW().
		onList(cmList("10", "t1", cm("a", "8"), cm("b", "8")), nil).
		onList(cmList("10", "t2", cm("c", "8"), cm("d", "8")), nil).
		onList(cmList("10", "", cm("e", "8")), nil)
	h := startWith(t, lw, func(s *recStore) Store[CM] { return partStore{s} }, WithPageSize(2))
	h.store.expect(t, "part first=true 2 from a")
	h.store.expect(t, "part first=false 2 from c")
	h.store.expect(t, "replace 10 1")
}
