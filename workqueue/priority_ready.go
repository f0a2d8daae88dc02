package workqueue

import "time"

// readySet holds a PriorityQueue's ready items and decides which one is
// handed out next:
//
//   - Overdue items first: an item that has been ready for maxWait or
//     longer is moved (promote) out of its priority into the overdue
//     level, which goes ahead of every priority.
//   - Otherwise the highest priority with ready items.
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
// Nodes and subqueues live in slices and link to each other by index
// (-1 for none), with free lists, so that a queue in steady state does
// not allocate. All of it is guarded by the queue's lock.
type readySet[T comparable] struct {
	nodes    []readyNode[T]
	freeNode int32 // a free node, linked through inSub.next; none when none
	subs     []subqueue
	freeSub  int32 // a free subqueue, linked through inRound.next
	levels   []level
	overdue  level
	age      ends // nodes not overdue, by inAge
	flows    flowTable
	n        int // ready items
	shrink   shrinkPolicy
}

type readyNode[T comparable] struct {
	item    T
	hash    uint64
	readyAt time.Duration
	inSub   link // in its subqueue, oldest first
	inAge   link // in the age list, while not overdue
	sub     int32
}

// subqueue holds one flow's items at one level, oldest first.
type subqueue struct {
	items   ends // nodes, by inSub
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

func (r *readySet[T]) inSub(nd int32) *link  { return &r.nodes[nd].inSub }
func (r *readySet[T]) inAge(nd int32) *link  { return &r.nodes[nd].inAge }
func (r *readySet[T]) inRound(s int32) *link { return &r.subs[s].inRound }

func (r *readySet[T]) init() {
	r.freeNode, r.freeSub = none, none
	r.overdue = level{round: noEnds}
	r.age = noEnds
	r.flows.init()
}

// push adds item, whose hash is h, at priority prio in flow, ready since
// now, and returns its node.
func (r *readySet[T]) push(item T, h uint64, prio int, flow int32, now time.Duration) int32 {
	nd := r.newNode()
	n := &r.nodes[nd]
	n.item, n.hash, n.readyAt = item, h, now
	r.age.push(r.inAge, nd)
	r.append(nd, r.subFor(prio, false, flow))
	r.n++
	r.shrink.grew(r.n)
	r.flows.readyChanged(flow, 1)
	return nd
}

// bump moves the node to priority prio, behind the items already there;
// an overdue node stays where it is.
func (r *readySet[T]) bump(nd int32, prio int) {
	s := r.nodes[nd].sub
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
	for nd := r.age.head; nd != none && r.nodes[nd].readyAt <= cutoff; nd = r.age.head {
		r.age.remove(r.inAge, nd)
		flow := r.subs[r.nodes[nd].sub].flow
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
	return r.nodes[r.age.head].readyAt, true
}

// pop removes the next item to hand out; the set must not be empty.
func (r *readySet[T]) pop() (item T, h uint64) {
	lv := &r.overdue
	if lv.n == 0 {
		lv = &r.levels[0]
	}
	s := lv.round.head
	nd := r.subs[s].items.head
	if r.subs[s].inRound.next != none { // its turn is over: to the back of the round
		lv.round.remove(r.inRound, s)
		lv.round.push(r.inRound, s)
	}
	n := &r.nodes[nd]
	item, h = n.item, n.hash
	if !r.subs[s].overdue {
		r.age.remove(r.inAge, nd)
	}
	r.flows.readyChanged(r.subs[s].flow, -1)
	r.unlink(nd)
	r.freeNodeAt(nd)
	r.n--
	if r.n == 0 && r.shrink.emptied(cap(r.nodes), minFIFO) {
		// Every node is free: start again with half the room.
		r.nodes = make([]readyNode[T], 0, cap(r.nodes)/2)
		r.freeNode = none
	}
	return item, h
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

// append puts node nd at the tail of subqueue s.
func (r *readySet[T]) append(nd, s int32) {
	r.nodes[nd].sub = s
	sub := &r.subs[s]
	sub.items.push(r.inSub, nd)
	r.levelFor(sub.prio, sub.overdue).n++
}

// unlink takes node nd out of its subqueue, and drops the subqueue, and
// its level, if that leaves them empty.
func (r *readySet[T]) unlink(nd int32) {
	s := r.nodes[nd].sub
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

func (r *readySet[T]) newNode() int32 {
	if nd := r.freeNode; nd != none {
		r.freeNode = r.nodes[nd].inSub.next
		return nd
	}
	r.nodes = append(r.nodes, readyNode[T]{})
	return int32(len(r.nodes) - 1)
}

// freeNodeAt clears node nd, so that the set holds no reference to its
// item, and puts it on the free list.
func (r *readySet[T]) freeNodeAt(nd int32) {
	r.nodes[nd] = readyNode[T]{inSub: link{next: r.freeNode}}
	r.freeNode = nd
}
