package workqueue

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

// refPriority is the reference a PriorityQueue is checked against: what
// the package documentation promises, with maps and slices and linear
// scans. Get never blocks: it reports ok false when a worker would wait.
type refPriority struct {
	now                       time.Duration
	maxWait, window, maxDelay time.Duration
	items                     map[int]*refPItem // queued, processing or waiting
	levels                    map[int]*refLevel // by priority
	overdue                   *refLevel
	age                       []int // ready items not overdue, in the order they became ready
	seq                       int
	lastOverdue               bool // the last get took an overdue item
	failures                  map[int]int
	shut                      bool
}

type refPItem struct {
	prio                       int
	reasons                    Reasons
	flow                       string
	dirty, processing, waiting bool
	due, afterAt, burstEnd     time.Duration // while waiting
	dueSeq                     int
	readyAt                    time.Duration
	overdue                    bool
}

// refLevel is one priority's items: per flow, first in first out, and
// the flows with items in the order they take turns.
type refLevel struct {
	round []string
	fifo  map[string][]int
}

func newRefLevel() *refLevel { return &refLevel{fifo: map[string][]int{}} }

func (l *refLevel) push(flow string, item int) {
	if len(l.fifo[flow]) == 0 {
		l.round = append(l.round, flow)
	}
	l.fifo[flow] = append(l.fifo[flow], item)
}

func (l *refLevel) remove(flow string, item int) {
	l.fifo[flow] = slices.DeleteFunc(l.fifo[flow], func(i int) bool { return i == item })
	if len(l.fifo[flow]) == 0 {
		l.round = slices.DeleteFunc(l.round, func(f string) bool { return f == flow })
	}
}

// take hands out the head of the flow whose turn it is; that flow goes
// to the back of the round if it has more.
func (l *refLevel) take() int {
	flow := l.round[0]
	item := l.fifo[flow][0]
	l.fifo[flow] = l.fifo[flow][1:]
	l.round = l.round[1:]
	if len(l.fifo[flow]) > 0 {
		l.round = append(l.round, flow)
	}
	return item
}

func newRefPriority(maxWait, window, maxDelay time.Duration) *refPriority {
	return &refPriority{maxWait: maxWait, window: window, maxDelay: maxDelay,
		items: map[int]*refPItem{}, levels: map[int]*refLevel{}, overdue: newRefLevel(), failures: map[int]int{}}
}

type refAdd struct {
	prio    *int
	requeue bool
	delay   time.Duration
	flow    string
	reasons Reasons
}

func (r *refPriority) level(e *refPItem) *refLevel {
	if e.overdue {
		return r.overdue
	}
	if r.levels[e.prio] == nil {
		r.levels[e.prio] = newRefLevel()
	}
	return r.levels[e.prio]
}

func (r *refPriority) add(item int, a refAdd) {
	if r.shut {
		return
	}
	e, known := r.items[item]
	if !known {
		e = &refPItem{}
		r.items[item] = e
	}
	pending := e.dirty || e.waiting
	prio := 0
	if a.prio != nil {
		prio = *a.prio
	} else if a.requeue && known {
		prio = e.prio
	}
	if pending {
		prio = max(prio, e.prio)
	}
	if a.flow != "" && !pending {
		e.flow = a.flow
	}
	e.reasons |= a.reasons
	switch {
	case e.dirty:
		if prio != e.prio && !e.processing && !e.overdue {
			r.level(e).remove(e.flow, item)
			e.prio = prio
			r.level(e).push(e.flow, item)
		}
		e.prio = prio
	case a.delay > 0 || !a.requeue && r.window > 0:
		e.prio = prio
		r.wait(item, e, a.delay)
	default:
		e.prio = prio
		r.makeDirty(item, e)
	}
}

func (r *refPriority) wait(item int, e *refPItem, delay time.Duration) {
	if !e.waiting {
		e.afterAt, e.burstEnd = never, never
	}
	due := e.afterAt
	if delay > 0 {
		e.afterAt = min(e.afterAt, r.now+delay)
		due = e.afterAt
		if e.waiting {
			due = min(due, e.due)
		}
	} else {
		if e.burstEnd == never {
			e.burstEnd = r.now + r.maxDelay
		}
		due = min(due, r.now+r.window, e.burstEnd)
	}
	if due <= r.now {
		r.makeDirty(item, e)
		return
	}
	if e.waiting && e.due == due {
		return
	}
	r.seq++
	e.waiting, e.due, e.dueSeq = true, due, r.seq
}

func (r *refPriority) makeDirty(item int, e *refPItem) {
	e.waiting, e.dirty = false, true
	if !e.processing {
		r.makeReady(item, e)
	}
}

func (r *refPriority) makeReady(item int, e *refPItem) {
	e.readyAt, e.overdue = r.now, false
	r.age = append(r.age, item)
	r.level(e).push(e.flow, item)
}

func (r *refPriority) addRateLimited(item int, a refAdd) {
	n := r.failures[item]
	r.failures[item]++
	a.requeue = true
	a.delay = min(refBase<<min(n, 20), refMax)
	r.add(item, a)
}

// get promotes the items ready for maxWait, oldest first, then takes from
// the overdue level if it has items, unless the last get took an overdue
// item and a priority has items: then, as otherwise, from the highest
// priority.
func (r *refPriority) get() (item, prio int, reasons Reasons, shutdown, ok bool) {
	for len(r.age) > 0 && r.now-r.items[r.age[0]].readyAt >= r.maxWait {
		item := r.age[0]
		e := r.items[item]
		r.age = r.age[1:]
		r.level(e).remove(e.flow, item)
		e.overdue = true
		r.overdue.push(e.flow, item)
	}
	best, found := 0, false
	for p, l := range r.levels {
		if len(l.round) > 0 && (!found || p > best) {
			best, found = p, true
		}
	}
	lv := r.overdue
	if len(lv.round) == 0 || r.lastOverdue && found {
		if !found {
			return 0, 0, 0, r.shut, r.shut
		}
		lv = r.levels[best]
	}
	r.lastOverdue = lv == r.overdue
	item = lv.take()
	e := r.items[item]
	r.age = slices.DeleteFunc(r.age, func(i int) bool { return i == item })
	prio, reasons = e.prio, e.reasons
	e.reasons, e.dirty, e.processing, e.overdue = 0, false, true, false
	return item, prio, reasons, false, true
}

func (r *refPriority) done(item int) {
	e, ok := r.items[item]
	if !ok || !e.processing {
		return
	}
	e.processing = false
	switch {
	case e.dirty:
		r.makeReady(item, e)
	case !e.waiting:
		delete(r.items, item)
	}
}

// advance moves time on by d and makes the items due ready in deadline
// order, ties in the order their deadlines were set.
func (r *refPriority) advance(d time.Duration) {
	r.now += d
	var due []int
	for item, e := range r.items {
		if e.waiting && e.due <= r.now {
			due = append(due, item)
		}
	}
	slices.SortFunc(due, func(a, b int) int {
		ea, eb := r.items[a], r.items[b]
		return cmp.Or(cmp.Compare(ea.due, eb.due), cmp.Compare(ea.dueSeq, eb.dueSeq))
	})
	for _, item := range due {
		r.makeDirty(item, r.items[item])
	}
}

func (r *refPriority) shutDown() {
	r.shut = true
	for item, e := range r.items {
		if e.waiting {
			e.waiting = false
			if !e.dirty && !e.processing {
				delete(r.items, item)
			}
		}
	}
}

func (r *refPriority) len() int {
	n := 0
	for _, e := range r.items {
		if e.dirty && !e.processing {
			n++
		}
	}
	return n
}

// depth returns the dirty items per priority: workqueue_depth{priority}.
func (r *refPriority) depth() map[int]int {
	d := map[int]int{}
	for _, e := range r.items {
		if e.dirty {
			d[e.prio]++
		}
	}
	return d
}

// TestPriorityModelSequential drives a PriorityQueue and the reference
// with the same long random sequences of calls, in one goroutine with a
// fake clock, and compares every result: which item Get hands out, at
// which priority and with which reasons; Len; NumRequeues; shutdown; and
// workqueue_depth per priority. Items are few and MaxWait short, so that
// calls keep meeting items that are queued, processing, waiting, raised
// to a higher priority, overdue, in several flows, or all at once; half
// the seeds debounce.
func TestPriorityModelSequential(t *testing.T) {
	for seed := range uint64(16) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runPriorityModel(t, seed) })
	}
}

func runPriorityModel(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 22))
	clock := newFakeClock()
	metrics := newFakePriorityMetrics()
	maxWait := time.Duration(2+r.IntN(12)) * time.Millisecond
	var window, maxDelay time.Duration
	opts := []Option{WithClock(clock), WithMaxWait(maxWait), WithName("model"), WithMetricsProvider(metrics)}
	if seed%2 == 1 {
		window, maxDelay = time.Duration(1+r.IntN(5))*time.Millisecond, time.Duration(5+r.IntN(10))*time.Millisecond
		opts = append(opts, WithDebounce(window, maxDelay))
	}
	q := NewPriority(NewExponentialLimiter[int](refBase, refMax), opts...)
	defer q.ShutDown()
	ref := newRefPriority(maxWait, window, maxDelay)
	items := 8 + r.IntN(40)
	priorities := []int{LowPriority, 0, 5}
	flows := []string{"", "a", "b", "c"}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %s: %s", log[max(0, len(log)-16):], fmt.Sprintf(format, args...))
	}
	randomOpts := func() (AddOpts, refAdd) {
		var o AddOpts
		if r.IntN(3) > 0 {
			p := priorities[r.IntN(len(priorities))]
			o.Priority = &p
		}
		if r.IntN(2) == 0 {
			o.Flow = flows[r.IntN(len(flows))]
		}
		o.Reasons = Reasons(1) << r.IntN(8)
		return o, refAdd{prio: o.Priority, flow: o.Flow, reasons: o.Reasons}
	}
	// Fewer Gets keep more items ready for longer: overdue, raised.
	gets := 47 + 8 + r.IntN(18)
	for range stressSize(4000) {
		item := r.IntN(items)
		switch p := r.IntN(100); {
		case p < 12:
			log = append(log, fmt.Sprint("Add(", item, ")"))
			q.Add(item)
			ref.add(item, refAdd{})
		case p < 30:
			o, a := randomOpts()
			log = append(log, fmt.Sprintf("AddWithOpts(%+v, %d)", o, item))
			q.AddWithOpts(o, item)
			ref.add(item, a)
		case p < 37:
			d := time.Duration(r.IntN(30)-5) * time.Millisecond
			log = append(log, fmt.Sprint("AddAfter(", item, ", ", d, ")"))
			q.AddAfter(item, d)
			ref.add(item, refAdd{requeue: true, delay: d})
		case p < 42:
			o, a := randomOpts()
			o.After = time.Duration(r.IntN(25)-5) * time.Millisecond
			a.delay, a.requeue = o.After, o.After > 0 // not positive: a plain add
			log = append(log, fmt.Sprintf("AddWithOpts(%+v, %d)", o, item))
			q.AddWithOpts(o, item)
			ref.add(item, a)
		case p < 47:
			log = append(log, fmt.Sprint("AddRateLimited(", item, ")"))
			q.AddRateLimited(item)
			ref.addRateLimited(item, refAdd{})
		case p < gets:
			want, wantPrio, wantReasons, shutdown, ok := ref.get()
			if !ok {
				continue // a worker would wait
			}
			got, gotPrio, gotReasons, gotShutdown := q.get()
			log = append(log, fmt.Sprint("Get() = ", got, "/", gotPrio, "/", gotReasons, ", ", gotShutdown))
			if got != want || gotPrio != wantPrio || gotReasons != wantReasons || gotShutdown != shutdown {
				fail("Get = %d/%d/%b, %v; want %d/%d/%b, %v", got, gotPrio, gotReasons, gotShutdown, want, wantPrio, wantReasons, shutdown)
			}
		case p < gets+16:
			log = append(log, fmt.Sprint("Done(", item, ")"))
			q.Done(item)
			ref.done(item)
		case p < gets+18:
			log = append(log, fmt.Sprint("Forget(", item, ")"))
			q.Forget(item)
			delete(ref.failures, item)
		case p < 99:
			d := time.Duration(r.IntN(8)) * time.Millisecond
			log = append(log, fmt.Sprint("Step(", d, ")"))
			clock.Step(d)
			q.promote()
			ref.advance(d)
		case r.IntN(3) == 0:
			log = append(log, "ShutDown()")
			q.ShutDown()
			ref.shutDown()
		}
		if got, want := q.Len(), ref.len(); got != want {
			fail("Len = %d, want %d", got, want)
		}
		if got, want := q.NumRequeues(item), ref.failures[item]; got != want {
			fail("NumRequeues(%d) = %d, want %d", item, got, want)
		}
		if got, want := q.ShuttingDown(), ref.shut; got != want {
			fail("ShuttingDown = %v, want %v", got, want)
		}
		depth := ref.depth()
		for _, prio := range priorities {
			if got, want := metrics.depth(prio), depth[prio]; got != want {
				fail("workqueue_depth{priority=%d} = %d, want %d", prio, got, want)
			}
		}
	}
}

// TestPriorityModelConcurrent runs random calls from several producers
// and workers at once, with random priorities, flows, reasons, delays
// and requeues, and checks what holds whatever the interleaving: no item
// is handed to two workers at once; every item is handed out after its
// last add; every reason added to an item is handed out with it, and no
// other; and a draining shutdown hands out what was queued, waits for it,
// and drops later adds.
func TestPriorityModelConcurrent(t *testing.T) {
	const items, producers, workers = 64, 4, 4
	clock := newFakeClock()
	q := NewPriority(NewExponentialLimiter[int](refBase, refMax), WithClock(clock),
		WithMaxWait(3*time.Millisecond), WithDebounce(time.Millisecond, 2*time.Millisecond))
	s := newStressKeys(t, items)
	// owed holds, per item, the reasons added and not yet handed out: a
	// producer sets its reason before it adds, a worker clears those it
	// gets. A hand-out may clear a reason set for an add that is still on
	// its way, which then comes with a later hand-out; so once idle,
	// nothing is owed unless a reason was lost.
	var owed, added [items]atomic.Uint64
	const workerReason Reasons = 1 << 10
	var failing atomic.Bool
	failing.Store(true)
	var workersDone sync.WaitGroup
	for range workers {
		workersDone.Go(func() {
			for {
				item, reasons, shutdown := q.GetWithReasons()
				if shutdown {
					return
				}
				if extra := reasons &^ Reasons(added[item].Load()); extra != 0 {
					t.Errorf("item %d handed out with reasons %b never added", item, extra)
				}
				owed[item].And(^uint64(reasons))
				s.process(item, func() {
					switch k := rand.IntN(8); {
					case !failing.Load():
					case k == 0:
						q.AddRateLimited(item) // a failure: same version, no reason
					case k == 1: // a change while processing: handed out again after Done
						s.bump(item)
						added[item].Or(uint64(workerReason))
						owed[item].Or(uint64(workerReason))
						q.AddWithOpts(AddOpts{Reasons: workerReason}, item)
					}
				})
				q.Done(item)
			}
		})
	}
	priorities := []int{LowPriority, 0, 5}
	s.produce(producers, stressSize(20_000), func(r *rand.Rand, p, item int) {
		reason := Reasons(1) << p
		s.bump(item)
		added[item].Or(uint64(reason))
		owed[item].Or(uint64(reason))
		o := AddOpts{Reasons: reason, Flow: fmt.Sprint("ns-", item%3)}
		switch k := r.IntN(10); {
		case k < 4:
			o.Priority = &priorities[r.IntN(len(priorities))]
		case k < 6:
			o.After = time.Duration(r.IntN(5)) * time.Millisecond
		case k == 9:
			clock.Step(time.Millisecond)
			runtime.Gosched()
		}
		q.AddWithOpts(o, item)
	})
	failing.Store(false)
	testkit.Eventually(t, 10*time.Second, "the queue to go idle", func() bool {
		clock.Step(time.Hour)
		q.promote()
		return q.quiet()
	})
	s.check()
	for item := range items {
		if lost := owed[item].Load(); lost != 0 {
			t.Errorf("item %d: reasons %b added and never handed out", item, lost)
		}
	}
	for item := range items {
		q.AddWithOpts(AddOpts{Reasons: 1}, item)
	}
	q.ShutDownWithDrain()
	if !q.quiet() {
		t.Error("items left after the drain")
	}
	q.Add(0)
	if q.Len() != 0 {
		t.Error("an add after the drain was queued")
	}
	workersDone.Wait()
	s.check()
}

// quiet reports whether nothing is queued, processing or waiting.
func (q *PriorityQueue[T]) quiet() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.idle() && q.waiting.live == 0 && q.items.index.n == 0
}
