package controller

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/writes"
)

// writeGate keeps a controller's reconciles from starting on a cache that
// does not show the controller's own writes (WithReadYourWrites), and
// recognizes the echoes of those writes: to drop them (WithDropOwnEchoes),
// or to queue them at the priority of the reconcile that wrote (with the
// priority queue), so that the follow-up of low-priority work, such as
// the initial list's, stays behind the changes that came from outside.
//
// Every reconcile's context carries a recorder for its request (package
// client records each write there). The writes wait in pending, per
// request, until the worker that next takes the request finds every one
// shown by its cache; until then the request is held: the worker puts it
// back without reconciling, and the cache's notification (or the wait
// bound's timer) adds it again. Entries leave when found shown, by a sweep
// when the map has doubled since the last one, or when the bound passes,
// so memory follows the writes in flight.
type writeGate struct {
	c       *Controller
	gate    bool // hold requests; false when only echoes are tracked
	maxWait time.Duration
	clock   clock.PassiveClock
	after   func(time.Duration, func()) func() bool

	mu      sync.Mutex
	pending map[reconcile.Request]*pendingWrites
	sweepAt int
	echoes  map[echoKey]echo // nil when echoes are neither dropped nor prioritized
	drop    bool             // drop echoes (WithDropOwnEchoes), else queue them at the writer's priority
	echoAt  int              // the echoes' sweep threshold
	flights map[reconcile.Request]*flight
	closed  bool
	// tracked is len(echoes) + len(flights), kept under mu, so that an
	// update event skips mu when nothing is tracked: the steady state of
	// a controller whose reconciles run at priority 0.
	tracked atomic.Int32
}

// flight is a reconcile in progress whose echoes are tracked: the adds of
// its request from update events, put off until it ends.
type flight struct{ later []echoEvent }

// pendingWrites are one request's writes that its cache may not show.
type pendingWrites struct {
	writes  []writes.Write
	heldAt  time.Time         // when the request was first held; zero while not
	why     reconcile.Reasons // the reasons of the takes it was held at
	release uint64            // the current release's number, so a stale one does nothing
	waiting bool              // a release is arranged
	unwait  func() bool       // cancels the release's cache notification
	untime  func() bool       // cancels the release's timer
}

// echoKey names an object a request's reconcile wrote.
type echoKey struct {
	req reconcile.Request
	uid types.UID
}

// echo is the resourceVersion the write returned, when, and the priority
// of the reconcile that made it.
type echo struct {
	rv   string
	at   time.Time
	prio int
}

const minSweep = 256

func newWriteGate(c *Controller) *writeGate {
	o := c.opts
	g := &writeGate{c: c, gate: o.readYourWrites, maxWait: o.readYourWritesWait, clock: o.clock,
		pending: map[reconcile.Request]*pendingWrites{}, sweepAt: minSweep, echoAt: minSweep}
	if o.dropEchoes || o.priority {
		g.drop = o.dropEchoes
		g.echoes = map[echoKey]echo{}
		g.flights = map[reconcile.Request]*flight{}
	}
	if d, ok := o.clock.(clock.WithDelayedExecution); ok {
		g.after = func(wait time.Duration, f func()) func() bool { return d.AfterFunc(wait, f).Stop }
	} else {
		g.after = func(wait time.Duration, f func()) func() bool { return time.AfterFunc(wait, f).Stop }
	}
	return g
}

// recorder is the writes.Recorder of one reconcile of req, handed
// out at priority prio.
type recorder struct {
	g    *writeGate
	req  reconcile.Request
	prio int
}

func (r *recorder) Record(w writes.Write) { r.g.record(r.req, r.prio, w) }

// tracksEchoes reports whether the echoes of a reconcile at priority prio
// are looked for: to drop them, or to queue them below the priority of an
// update (0) when the reconcile's was lower.
func (g *writeGate) tracksEchoes(prio int) bool {
	return g.echoes != nil && (g.drop || prio < 0)
}

func (g *writeGate) record(req reconcile.Request, prio int, w writes.Write) {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.tracksEchoes(prio) && !w.Deleted && w.ResourceVersion != "" {
		g.echoes[echoKey{req, w.UID}] = echo{w.ResourceVersion, now, prio}
		if len(g.echoes) >= g.echoAt {
			g.sweepEchoes(now)
		}
		g.count()
	}
	if !g.gate {
		return
	}
	p := g.pending[req]
	if p == nil {
		p = &pendingWrites{}
		g.pending[req] = p
	}
	p.add(w)
	if len(g.pending) >= g.sweepAt {
		g.sweep()
	}
}

// add merges w into the writes: of one cache's namespace only the newest
// resourceVersion matters, and a deletion replaces an earlier deletion of
// the same object. It does not replace a change: the change's
// resourceVersion may stand for other writes in its namespace, and a
// cache that has not seen the object created does not hold it, yet may
// show it later.
func (p *pendingWrites) add(w writes.Write) {
	for i, x := range p.writes {
		switch {
		case x.Cache != w.Cache || x.Namespace != w.Namespace:
		case x.Deleted || w.Deleted:
			if x.Deleted && x.UID == w.UID && x.Name == w.Name {
				p.writes[i] = w
				return
			}
		default:
			if newer(w.ResourceVersion, x.ResourceVersion) {
				p.writes[i] = w
			}
			return
		}
	}
	p.writes = append(p.writes, w)
}

// newer reports whether resourceVersion a is newer than b; a when either
// is not a number, since it was recorded later.
func newer(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 != nil || err2 != nil || x > y
}

// shown drops the writes their caches show, in the order they were made
// up to the first one not shown, and reports whether none is left. The
// order matters for a deletion: a cache that has not seen the object
// created does not hold it either, so a deletion counts as shown only
// once the writes before it are.
func (p *pendingWrites) shown() bool {
	n := 0
	for n < len(p.writes) && p.writes[n].Cache.Shows(p.writes[n]) {
		n++
	}
	p.writes = slices.Delete(p.writes, 0, n)
	return len(p.writes) == 0
}

// sweep drops the requests whose writes are all shown; g.mu is held.
func (g *writeGate) sweep() {
	for req, p := range g.pending {
		if !p.waiting && p.shown() {
			delete(g.pending, req)
		}
	}
	g.sweepAt = max(minSweep, 2*len(g.pending))
}

// sweepEchoes drops the echoes recorded longer than the wait bound ago,
// whose events have surely been delivered; g.mu is held.
func (g *writeGate) sweepEchoes(now time.Time) {
	for k, e := range g.echoes {
		if now.Sub(e.at) > g.maxWait {
			delete(g.echoes, k)
		}
	}
	g.echoAt = max(minSweep, 2*len(g.echoes))
}

// hold is what the gate decided for a request a worker took.
type hold struct {
	held      bool              // put it back: the caches are behind
	wasHeld   bool              // it was held before this run
	why       reconcile.Reasons // the reasons of earlier takes that were held
	waited    time.Duration     // how long it was held before this run
	timedOut  bool              // it runs because the wait bound passed
	awaitedRV string            // a resourceVersion it waited for
}

// check decides whether req, taken by a worker for reasons why, must wait
// for its caches; if so it arranges for req to be added again when they
// may show its writes, or when the bound passes.
func (g *writeGate) check(req reconcile.Request, why reconcile.Reasons) hold {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pending[req]
	if p == nil || !g.gate {
		return hold{}
	}
	var awaited string
	if len(p.writes) > 0 {
		awaited = p.writes[0].ResourceVersion
	}
	done := hold{why: p.why, awaitedRV: awaited}
	if !p.heldAt.IsZero() {
		done.wasHeld, done.waited = true, g.clock.Since(p.heldAt)
	}
	if p.shown() {
		delete(g.pending, req)
		p.stop()
		return done
	}
	now := g.clock.Now()
	if p.heldAt.IsZero() {
		p.heldAt = now
		g.c.writeMetrics(func(m WriteMetrics) { m.Held(g.c.name) })
	}
	left := g.maxWait - now.Sub(p.heldAt)
	if left <= 0 {
		delete(g.pending, req)
		p.stop()
		done.wasHeld, done.waited = true, now.Sub(p.heldAt)
		done.timedOut, done.awaitedRV = true, p.writes[0].ResourceVersion
		return done
	}
	p.why |= why
	if p.waiting {
		return hold{held: true}
	}
	p.release++
	n := p.release
	release := func() { g.released(req, p, n) }
	for _, w := range p.writes {
		if cancel, waiting := w.Cache.WhenShows(w, release); waiting {
			p.unwait = cancel
			break
		}
	}
	p.waiting = true
	if p.unwait == nil && p.shown() {
		// The caches caught up since shown was asked, and will not
		// notify: release now rather than at the bound.
		go release()
		return hold{held: true}
	}
	// On its own goroutine: a fake clock runs the callback holding its
	// lock, which the queue's add takes to read the time.
	p.untime = g.after(left, func() { go release() })
	return hold{held: true}
}

// released adds a held request again, once per release.
func (g *writeGate) released(req reconcile.Request, p *pendingWrites, n uint64) {
	g.mu.Lock()
	if g.closed || g.pending[req] != p || p.release != n || !p.waiting {
		g.mu.Unlock()
		return
	}
	p.stop() // the other of the two calls would find the release stale anyway
	why := p.why
	g.mu.Unlock()
	g.c.queue.addHeld(req, why)
}

// stop cancels an arranged release; g.mu is held.
func (p *pendingWrites) stop() {
	for _, cancel := range []func() bool{p.unwait, p.untime} {
		if cancel != nil {
			cancel()
		}
	}
	p.unwait, p.untime, p.waiting = nil, nil, false
}

// ownEcho takes care of an add of req for an update event e, which a
// handler maps to req, if it is the echo of a write req's reconcile made:
// it drops the add, or makes it at that reconcile's priority if lower. It
// puts the add off if req is being reconciled, until that reconcile ends:
// the watch may deliver a write's echo before the write's response has
// been read and recorded. An add put off is made then (before the request
// is done, so it is handed out again as an add during the reconcile would
// be), unless it turns out to be an echo that is dropped.
func (g *writeGate) ownEcho(req reconcile.Request, e echoEvent) bool {
	if g.tracked.Load() == 0 {
		return false
	}
	g.mu.Lock()
	if f, ok := g.flights[req]; ok {
		f.later = append(f.later, e)
		g.mu.Unlock()
		return true
	}
	add, handled := g.echoLocked(req, &e)
	g.count()
	g.mu.Unlock()
	if handled && add {
		handler.AddWithOpts(e.q, e.o, req)
	}
	return handled
}

// echoLocked looks e up among the writes req's reconciles made, and
// forgets the write if e is its echo or is past it. For an echo it lowers
// e's priority to the writer's, and reports whether to add it all the
// same (not when dropping) and that it took care of it; g.mu is held.
func (g *writeGate) echoLocked(req reconcile.Request, e *echoEvent) (add, handled bool) {
	k := echoKey{req, e.uid}
	w, ok := g.echoes[k]
	switch {
	case !ok:
		return false, false
	case w.rv == e.rv:
		delete(g.echoes, k)
		if g.drop {
			g.c.writeMetrics(func(m WriteMetrics) { m.EchoDropped(g.c.name) })
			return false, true
		}
		if e.o.Priority == nil && w.prio < 0 || e.o.Priority != nil && w.prio < *e.o.Priority {
			e.o.Priority = &w.prio
		}
		return true, true
	case newer(e.rv, w.rv):
		delete(g.echoes, k) // the echo went by merged into a later change
	}
	return false, false
}

// begin records that req is being reconciled at priority prio, when its
// echoes are tracked.
func (g *writeGate) begin(req reconcile.Request, prio int) {
	if !g.tracksEchoes(prio) {
		return
	}
	g.mu.Lock()
	g.flights[req] = &flight{}
	g.count()
	g.mu.Unlock()
}

// end records that req's reconcile has returned, and makes the adds put
// off meanwhile that are not echoes to drop.
func (g *writeGate) end(req reconcile.Request) {
	if g.echoes == nil {
		return
	}
	g.mu.Lock()
	f, ok := g.flights[req]
	if !ok {
		g.mu.Unlock()
		return
	}
	delete(g.flights, req)
	adds := f.later[:0]
	for _, e := range f.later {
		if add, handled := g.echoLocked(req, &e); add || !handled {
			adds = append(adds, e)
		}
	}
	g.count()
	g.mu.Unlock()
	for _, e := range adds {
		handler.AddWithOpts(e.q, e.o, req)
	}
}

// close cancels every arranged release, when the controller stops.
func (g *writeGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for _, p := range g.pending {
		p.stop()
	}
	clear(g.pending)
	clear(g.echoes)
	g.count()
}

// count records how many echoes and flights are tracked; g.mu is held.
func (g *writeGate) count() { g.tracked.Store(int32(len(g.echoes) + len(g.flights))) }

// held counts the requests put back to wait for their caches.
func (g *writeGate) held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, p := range g.pending {
		if p.waiting {
			n++
		}
	}
	return n
}
