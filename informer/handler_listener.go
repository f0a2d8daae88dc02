package informer

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

type kind uint8

const (
	kindCreate kind = iota + 1
	kindUpdate
	kindDelete
)

// notification is one event for one key, waiting for a handler.
type notification[T object.Object] struct {
	kind    kind
	initial bool        // create: part of the initial list
	partial bool        // create in a compact cache's chunk: obj has only its metadata (see compactStore.put)
	unknown bool        // delete: final state unknown (inferred from a relist)
	old     T           // update: the state the handler saw last
	lazyOld *lazyOld[T] // update in a compact cache: old, still encoded (old unset)
	obj     T           // create, update: the new state; delete: the last known state
}

// encodedChange is a change in a compact cache's chunk. If data is set, it
// is the object (for a create, obj; for a resync's update, old and obj)
// as the cache keeps it, which each handler decodes as it is delivered
// unless the notification carries the object too (a small chunk): a
// chunk of a whole list then holds no decoded objects.
type encodedChange[T object.Object] struct {
	change[T]
	data []byte
}

// slot holds a key's pending notifications. Merging keeps it to at most two:
// a delete followed by the create of a re-created object. A slot with n == 0
// still has its place in the queue order.
type slot[T object.Object] struct {
	q [2]notification[T]
	n uint8
}

// merge folds next into the slot's pending notifications. A handler that
// keeps up never has anything to merge; one that lags sees the latest state
// of each key instead of every intermediate one, which bounds its buffer by
// the number of distinct keys rather than by the number of events.
func (s *slot[T]) merge(next notification[T]) {
	if s.n == 0 {
		s.q[0], s.n = next, 1
		return
	}
	last := &s.q[s.n-1]
	switch {
	case next.kind == kindUpdate && last.kind != kindDelete:
		last.obj = next.obj // create+update = create(new); update+update = update(first old, new)
	case next.kind == kindDelete && last.kind == kindCreate:
		s.n-- // the handler never saw the object: it needs neither event
	case next.kind == kindDelete && last.kind == kindUpdate:
		*last = next
	case int(s.n) < len(s.q):
		s.q[s.n] = next
		s.n++
	default:
		*last = next
	}
}

// entry is a place in a listener's delivery order: one key's pending
// notifications, a chunk of a batch's notifications, or a barrier that marks
// the end of the initial list.
type entry[T object.Object] struct {
	key     string
	slot    *slot[T]
	chunk   []change[T]
	encoded []encodedChange[T] // a compact cache's chunk
	barrier bool
}

// listener delivers notifications to one handler from its own goroutine.
type listener[T object.Object] struct {
	handler Handler[T]
	log     logr.Logger

	mu    sync.Mutex
	cond  sync.Cond
	order queue[entry[T]]
	// pending holds the slots that later events for the same key may merge
	// into: those queued since the last chunk. A chunk seals them, so that
	// nothing after the chunk is delivered before it.
	pending map[string]*slot[T]
	free    []*slot[T] // delivered slots, for reuse
	stopped bool
	halt    atomic.Bool // stopped, readable without the lock mid-chunk

	synced atomic.Bool
	done   chan struct{}
	// decode decodes encodedChanges' data; set for a compact cache's
	// informer before the listener runs.
	decode func([]byte) (T, error)
	// metadataOnly: the handler takes objects with only their metadata
	// decoded in the creates of an initial list (MetadataOnly).
	metadataOnly bool
}

func newListener[T object.Object](h Handler[T], log logr.Logger) *listener[T] {
	l := &listener[T]{handler: h, log: log, pending: make(map[string]*slot[T]), done: make(chan struct{})}
	l.cond.L = &l.mu
	return l
}

// enqueue adds a notification for key; it never blocks on the handler.
func (l *listener[T]) enqueue(key string, n notification[T]) {
	l.mu.Lock()
	s := l.pending[key]
	if s == nil {
		if k := len(l.free); k > 0 {
			s, l.free = l.free[k-1], l.free[:k-1]
		} else {
			s = new(slot[T])
		}
		l.pending[key] = s
		l.push(entry[T]{key: key, slot: s})
	}
	s.merge(n)
	l.mu.Unlock()
}

// enqueueChunk adds a batch's notifications in one step; the listener only
// reads the slice, so all listeners share it.
func (l *listener[T]) enqueueChunk(chunk []change[T]) {
	if len(chunk) > 0 {
		l.pushSealing(entry[T]{chunk: chunk})
	}
}

// pushSealing queues a chunk, after which nothing merges into the slots
// queued before it.
func (l *listener[T]) pushSealing(e entry[T]) {
	l.mu.Lock()
	clear(l.pending)
	l.push(e)
	l.mu.Unlock()
}

// enqueueEncoded is enqueueChunk for a compact cache's chunk.
func (l *listener[T]) enqueueEncoded(chunk []encodedChange[T]) {
	if len(chunk) > 0 {
		l.pushSealing(entry[T]{encoded: chunk})
	}
}

// markSynced queues a barrier: once every notification queued before it has
// been handled, the listener reports HasSynced.
func (l *listener[T]) markSynced() {
	l.mu.Lock()
	l.push(entry[T]{barrier: true})
	l.mu.Unlock()
}

func (l *listener[T]) push(e entry[T]) {
	if l.order.len() == 0 {
		l.cond.Signal()
	}
	l.order.push(e)
}

func (l *listener[T]) stop() {
	l.mu.Lock()
	l.stopped = true
	l.halt.Store(true)
	l.cond.Broadcast()
	l.mu.Unlock()
}

func (l *listener[T]) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for l.order.len() == 0 && !l.stopped {
			l.cond.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		e := l.order.pop()
		var s slot[T]
		if e.slot != nil {
			s = *e.slot
			if l.pending[e.key] == e.slot {
				delete(l.pending, e.key)
			}
			*e.slot = slot[T]{}
			l.free = append(l.free, e.slot)
		}
		l.mu.Unlock()
		switch {
		case e.barrier:
			l.synced.Store(true)
		case e.chunk != nil:
			for i := range e.chunk {
				if l.halt.Load() {
					return
				}
				l.deliver(e.chunk[i].key, &e.chunk[i].n)
			}
		case e.encoded != nil:
			for i := range e.encoded {
				if l.halt.Load() {
					return
				}
				l.deliverEncoded(&e.encoded[i])
			}
		default:
			for i := range s.n {
				l.deliver(e.key, &s.q[i])
			}
		}
	}
}

// deliver calls the handler, recovering a panic so that one bad event does
// not stop this handler's later events or the informer.
func (l *listener[T]) deliver(key string, n *notification[T]) {
	defer func() {
		if r := recover(); r != nil {
			l.log.Error(fmt.Errorf("panic: %v", r), "informer handler panicked; event dropped",
				"key", key, "stack", string(debug.Stack()))
		}
	}()
	switch n.kind {
	case kindCreate:
		l.handler.OnCreate(event.Create[T]{Object: n.obj, IsInInitialList: n.initial})
	case kindUpdate:
		old := n.old
		if n.lazyOld != nil {
			var err error
			if old, err = n.lazyOld.get(l.decode); err != nil {
				// The update still reaches the handler, as a resync would.
				l.log.Error(err, "informer update delivered with its new state as the old: the old does not decode from the compact cache", "key", key)
				old = n.obj
			}
		}
		l.handler.OnUpdate(event.Update[T]{ObjectOld: old, ObjectNew: n.obj})
	case kindDelete:
		// Parsing the key costs no allocation and deletes are rare, so the
		// notification carries only the string key every other kind needs.
		l.handler.OnDelete(event.Delete[T]{Key: object.ParseKey(key), Object: n.obj, DeleteStateUnknown: n.unknown})
	}
}

// deliverEncoded decodes c's object, if it comes encoded, into a
// notification of this handler's own (the chunk is shared), and delivers it.
func (l *listener[T]) deliverEncoded(c *encodedChange[T]) {
	n := c.n
	if c.data != nil && (event.IsNil(n.obj) || (n.partial && !l.metadataOnly)) {
		obj, err := l.decode(c.data)
		if err != nil {
			l.log.Error(err, "informer event dropped: its object does not decode from the compact cache", "key", c.key)
			return
		}
		n.obj, n.partial = obj, false
		if n.kind == kindUpdate {
			n.old = obj
		}
	}
	l.deliver(c.key, &n)
}

// queue is a FIFO on a ring buffer; it reuses its storage, so a steady
// stream of pushes and pops does not allocate.
type queue[E any] struct {
	buf        []E
	head, size int
}

func (q *queue[E]) len() int { return q.size }

func (q *queue[E]) push(e E) {
	if q.size == len(q.buf) {
		grown := make([]E, max(16, 2*len(q.buf)))
		for i := range q.size {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = e
	q.size++
}

func (q *queue[E]) pop() E {
	var zero E
	e := q.buf[q.head]
	q.buf[q.head] = zero // let the garbage collector have it
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return e
}
