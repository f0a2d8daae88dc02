package workqueue

import "time"

// readySet holds a PriorityQueue's ready items and decides which one is
// handed out next:
//
//   - Overdue items and the rest take turns: an item that has been ready
//     for maxWait or longer is moved (promote) out of its priority into
//     the overdue level, which gets every other hand-out while the
//     priorities have items too, and every hand-out while they have none.
//   - The priorities' turns go to the highest priority with ready items.
//   - Within a level, flows take turns (round robin, one item per turn),
//     and a flow's items at one level are handed out first in, first out.
//
// Every level keeps one subqueue per flow with items at it, and a round
// of those subqueues: the next turn is the round's head, which moves to
// the tail when it still has items after its turn. A subqueue joins the
// tail of the round when it gets its first item. The levels with items
// are kept sorted, highest first; they are few (one per priority in use).
//
// The age list links the items that are not overdue in the order they
// became ready, so the next item to become overdue is always its head.
// An item whose priority is raised moves to the tail of its new level,
// as if it had just been added there, but keeps its place in the age
// list: its wait counts from when it became ready.
//
// The ready items are the queue's records (priorityItems), which the set
// links by their ids: a record's readyAt, inSub, inAge and sub are the
// set's while the item is ready. Records and subqueues live in slices
// and link to each other by index (-1 for none), subqueues with a free
// list, so that a queue in steady state does not allocate. All of it is
// guarded by the queue's lock.
type readySet[T comparable] struct {
	items   *priorityItems[T] // the queue's
	subs    []subqueue
	freeSub int32 // a free subqueue, linked through inRound.next
	levels  []level
	overdue level
	// lastOverdue says the last hand-out was an overdue item's, so the
	// next goes to the priorities if they have items.
	lastOverdue bool
	age         ends // records not overdue, by inAge
	flows       flowTable
	n           int // ready items
}

// subqueue holds one flow's items at one level, oldest first.
type subqueue struct {
	items   ends // records, by inSub
	inRound link // in the level's round
	prio    int  // the level, unless overdue
	flow    int32
	overdue bool
}

// level is one priority's round of subqueues, or the overdue level's.
type level struct {
	prio  int
	round ends // subqueues in turn order, by inRound
	n     int  // items
}

// link is an element's place in a doubly linked list of indices, ends
// the list's first and last elements; none where there is none.
type (
	link struct{ prev, next int32 }
	ends struct{ head, tail int32 }
)

const none int32 = -1

var noEnds = ends{none, none}

// push appends element i to the list; links returns an element's link.
func (e *ends) push(links func(int32) *link, i int32) {
	*links(i) = link{prev: e.tail, next: none}
	if e.tail != none {
		links(e.tail).next = i
	} else {
		e.head = i
	}
	e.tail = i
}

// remove takes element i out of the list.
func (e *ends) remove(links func(int32) *link, i int32) {
	l := *links(i)
	if l.prev != none {
		links(l.prev).next = l.next
	} else {
		e.head = l.next
	}
	if l.next != none {
		links(l.next).prev = l.prev
	} else {
		e.tail = l.prev
	}
}

func (r *readySet[T]) rec(nd int32) *priorityItem[T] { return &r.items.recs[nd] }
func (r *readySet[T]) inSub(nd int32) *link          { return &r.items.recs[nd].inSub }
func (r *readySet[T]) inAge(nd int32) *link          { return &r.items.recs[nd].inAge }
func (r *readySet[T]) inRound(s int32) *link         { return &r.subs[s].inRound }

// init makes the set empty; it links the records of items.
func (r *readySet[T]) init(items *priorityItems[T]) {
	r.items = items
	r.freeSub = none
	r.overdue = level{round: noEnds}
	r.age = noEnds
	r.flows.init()
}

// push adds record nd, at its priority in its flow, ready since now.
func (r *readySet[T]) push(nd int32, now time.Duration) {
	rec := r.rec(nd)
	rec.readyAt = now
	r.age.push(r.inAge, nd)
	r.append(nd, r.subFor(rec.prio, false, rec.flow))
	r.n++
	r.flows.readyChanged(rec.flow, 1)
}

// bump moves record nd to priority prio, behind the items already there;
// an overdue record stays where it is.
func (r *readySet[T]) bump(nd int32, prio int) {
	s := r.rec(nd).sub
	if r.subs[s].overdue || r.subs[s].prio == prio {
		return
	}
	flow := r.subs[s].flow
	r.unlink(nd)
	r.append(nd, r.subFor(prio, false, flow))
}

// promote moves the items that became ready at or before cutoff to the
// overdue level, oldest first.
func (r *readySet[T]) promote(cutoff time.Duration) {
	for nd := r.age.head; nd != none && r.rec(nd).readyAt <= cutoff; nd = r.age.head {
		r.age.remove(r.inAge, nd)
		flow := r.subs[r.rec(nd).sub].flow
		r.unlink(nd)
		r.append(nd, r.subFor(0, true, flow))
	}
}

// nextOverdue reports when the oldest item that is not overdue became
// ready, if there is one.
func (r *readySet[T]) nextOverdue() (time.Duration, bool) {
	if r.age.head == none {
		return 0, false
	}
	return r.rec(r.age.head).readyAt, true
}

// pop removes the next item to hand out and returns its record; the set
// must not be empty.
func (r *readySet[T]) pop() int32 {
	// The priorities have items when not every ready item is overdue.
	lv := &r.overdue
	if lv.n == 0 || r.lastOverdue && r.n > lv.n {
		lv = &r.levels[0]
	}
	r.lastOverdue = lv == &r.overdue
	s := lv.round.head
	nd := r.subs[s].items.head
	if r.subs[s].inRound.next != none { // its turn is over: to the back of the round
		lv.round.remove(r.inRound, s)
		lv.round.push(r.inRound, s)
	}
	if !r.subs[s].overdue {
		r.age.remove(r.inAge, nd)
	}
	r.flows.readyChanged(r.subs[s].flow, -1)
	r.unlink(nd)
	r.n--
	return nd
}

// levelFor returns the level of prio, or the overdue level, creating the
// level if needed.
func (r *readySet[T]) levelFor(prio int, overdue bool) *level {
	if overdue {
		return &r.overdue
	}
	i, found := r.findLevel(prio)
	if !found {
		r.levels = append(r.levels, level{})
		copy(r.levels[i+1:], r.levels[i:])
		r.levels[i] = level{prio: prio, round: noEnds}
	}
	return &r.levels[i]
}

// findLevel returns the index of prio's level in the levels, highest
// first, or where it would go.
func (r *readySet[T]) findLevel(prio int) (int, bool) {
	lo, hi := 0, len(r.levels)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.levels[m].prio > prio {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(r.levels) && r.levels[lo].prio == prio
}

// subFor returns flow's subqueue at prio (or the overdue level), creating
// it at the tail of the level's round if the flow has no items there.
func (r *readySet[T]) subFor(prio int, overdue bool, flow int32) int32 {
	f := &r.flows.recs[flow]
	for _, s := range f.subs {
		if r.subs[s].overdue == overdue && (overdue || r.subs[s].prio == prio) {
			return s
		}
	}
	s := r.freeSub
	if s != none {
		r.freeSub = r.subs[s].inRound.next
	} else {
		s = int32(len(r.subs))
		r.subs = append(r.subs, subqueue{})
	}
	r.subs[s] = subqueue{items: noEnds, prio: prio, flow: flow, overdue: overdue}
	f.subs = append(f.subs, s)
	r.levelFor(prio, overdue).round.push(r.inRound, s)
	return s
}

// append puts record nd at the tail of subqueue s.
func (r *readySet[T]) append(nd, s int32) {
	r.rec(nd).sub = s
	sub := &r.subs[s]
	sub.items.push(r.inSub, nd)
	r.levelFor(sub.prio, sub.overdue).n++
}

// unlink takes record nd out of its subqueue, and drops the subqueue,
// and its level, if that leaves them empty.
func (r *readySet[T]) unlink(nd int32) {
	s := r.rec(nd).sub
	sub := &r.subs[s]
	sub.items.remove(r.inSub, nd)
	lv := &r.overdue
	li := -1
	if !sub.overdue {
		li, _ = r.findLevel(sub.prio)
		lv = &r.levels[li]
	}
	lv.n--
	if sub.items.head != none {
		return
	}
	lv.round.remove(r.inRound, s)
	f := &r.flows.recs[sub.flow]
	for i, x := range f.subs {
		if x == s {
			last := len(f.subs) - 1
			f.subs[i] = f.subs[last]
			f.subs = f.subs[:last]
			break
		}
	}
	sub.inRound.next = r.freeSub
	r.freeSub = s
	if li >= 0 && lv.n == 0 {
		r.levels = append(r.levels[:li], r.levels[li+1:]...)
	}
}
