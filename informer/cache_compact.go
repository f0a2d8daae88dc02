package informer

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/object"
)

// A compact Cache (WithCompact; the default) keeps each object
// encoded — a ConfigMap's protobuf, with the map entry that holds it,
// takes about 40% of the heap of the decoded object — together with the values its indexes extracted
// when it was stored, and decodes on every read. A built-in kind's object
// cached just as its protobuf watch decoded it is kept as the bytes it was
// decoded from (see useWireEncodings): the bytes encoding it would give,
// plus any field a newer server sent that this client does not know (and
// decoding skips). A read therefore returns an object of the caller's
// own, safe to modify, where a shared cache returns the object every
// reader and handler shares.
//
// It also keeps the last recentSize objects a watch event stored decoded:
// the objects the reflector produced, which handlers got in their events.
// Not those of a list: a list's objects may share one array, which a
// single object kept would keep whole, and their events carry them
// encoded anyway (see applyDelta).
// A controller reads an object soon after its event, and an update's
// event needs the previous state; both find it there most of the time,
// and then cost a DeepCopy instead of a decode (which is 1.6 times a
// DeepCopy for a ConfigMap, under twice for a custom resource in the
// fields form, 10 to 20 times in JSON). cache_codec.go tells which form each kind gets and why.

// recentSize is how many recently stored objects a compact cache keeps
// decoded: a few hundred kilobytes for typical objects.
const recentSize = 256

// compactStore is a compact Cache's objects. The cache's mutex guards it.
type compactStore[T object.Object] struct {
	codec *codec[T]
	// wire, if set, holds the encodings of watched objects as their
	// decoder read them (see useWireEncodings), taken instead of encoding.
	wire  *protowatch.Encodings
	items map[string][]byte // never modified once stored: readers decode outside the lock
	// recent is a ring of the last objects watch events stored, decoded,
	// found by key through slot. An object leaves it when recentSize newer
	// ones have come in, or when a list replaces it or it is removed; a
	// watch event replaces it in place.
	recent []recentObject[T]
	slot   map[string]int
	next   int
}

type recentObject[T object.Object] struct {
	key string
	obj T
}

func newCompactStore[T object.Object](c *codec[T]) *compactStore[T] {
	return &compactStore[T]{codec: c, items: make(map[string][]byte), recent: make([]recentObject[T], recentSize), slot: make(map[string]int, recentSize)}
}

// ref is what a read takes under the lock to produce an object after it:
// a shared decoded object to copy, or bytes to decode.
type ref[T object.Object] struct {
	key  string
	obj  T
	hot  bool
	data []byte
}

func (s *compactStore[T]) ref(key string) (ref[T], bool) {
	if i, ok := s.slot[key]; ok {
		return ref[T]{key: key, obj: s.recent[i].obj, hot: true}, true
	}
	data, ok := s.items[key]
	return ref[T]{key: key, data: data}, ok
}

// object returns a new object equal to the one r refers to, owned by the
// caller.
func (s *compactStore[T]) object(r ref[T]) (T, error) {
	if r.hot {
		return r.obj.DeepCopyObject().(T), nil
	}
	obj, err := s.codec.decode(r.data)
	if err != nil {
		return obj, fmt.Errorf("informer: decoding %s from the compact cache (%s): %w", r.key, s.codec.form, err)
	}
	return obj, nil
}

// shared returns the object r refers to for an event: the decoded object
// itself when it is recent (handlers share their events' objects), or a
// decoded one.
func (s *compactStore[T]) shared(r ref[T]) (T, error) {
	if r.hot {
		return r.obj, nil
	}
	return s.object(r)
}

// put stores obj, encoded, under key, and among the recent objects if
// recent, and fills in p: the reference to the previous state, whether
// obj encodes to the same bytes (an unchanged object, which a relist sends
// again), and the bytes stored.
//
// An object of a streamed list may come with only its metadata decoded
// (protowatch.Kind.WatchList): its bytes are stored as they came, and it
// is decoded whole from them, into p.whole, if whole is set, or it is to
// be kept recent, or it replaces a cached state (whose update event
// carries it); otherwise p.partial says it is not whole. It returns the
// object to index.
func (s *compactStore[T]) put(key string, obj T, recent, whole bool, p *prior[T]) (T, error) {
	data, partial := s.fromWire(obj)
	if data == nil {
		var err error
		if data, err = s.codec.encode(obj); err != nil {
			return obj, fmt.Errorf("informer: encoding %s for the compact cache (%s): %w", key, s.codec.form, err)
		}
	}
	p.ref, p.existed = s.ref(key)
	if partial && (whole || recent || p.existed) {
		full, err := s.codec.decode(data)
		if err != nil {
			return obj, fmt.Errorf("informer: decoding %s as the server sent it (%s): %w", key, s.codec.form, err)
		}
		obj, partial, p.whole = full, false, full
	}
	p.same = p.existed && bytes.Equal(s.items[key], data)
	p.stored, p.partial = data, partial
	s.items[key] = data
	if recent {
		s.remember(key, obj)
	} else {
		s.forget(key) // its decoded state is no longer the cached one
	}
	return obj, nil
}

// fromWire takes obj's encoding from its watch decoder, or returns nil,
// and reports whether obj has only its metadata decoded. An object with
// apiVersion and kind set is not one the decoder made.
func (s *compactStore[T]) fromWire(obj T) ([]byte, bool) {
	if s.wire == nil || !obj.GetObjectKind().GroupVersionKind().Empty() {
		return nil, false
	}
	return s.wire.Take(obj.GetResourceVersion(), obj.GetNamespace(), obj.GetName())
}

func (s *compactStore[T]) remember(key string, obj T) {
	if i, ok := s.slot[key]; ok {
		s.recent[i].obj = obj
		return
	}
	if evicted := s.recent[s.next]; evicted.key != "" {
		delete(s.slot, evicted.key)
	}
	s.recent[s.next] = recentObject[T]{key: key, obj: obj}
	s.slot[key] = s.next
	s.next = (s.next + 1) % len(s.recent)
}

func (s *compactStore[T]) forget(key string) {
	if i, ok := s.slot[key]; ok {
		s.recent[i] = recentObject[T]{}
		delete(s.slot, key)
	}
}

func (s *compactStore[T]) remove(key string) (old ref[T], existed bool) {
	old, existed = s.ref(key)
	if !existed {
		return old, false
	}
	s.forget(key)
	delete(s.items, key)
	return old, true
}

func (s *compactStore[T]) clear() {
	s.items = make(map[string][]byte)
	clear(s.recent)
	clear(s.slot)
	s.next = 0
}

// namespaceOf returns the namespace of an object.Key.
func namespaceOf(key string) string {
	ns, _, found := strings.Cut(key, "/")
	if !found {
		return ""
	}
	return ns
}

// owned returns a new object equal to the one r refers to, for a reader;
// an entry that fails to decode is reported and read as missing.
func (c *Cache[T]) owned(r ref[T]) (T, bool) {
	obj, err := c.compact.object(r)
	if err != nil {
		c.onError(err)
		var zero T
		return zero, false
	}
	return obj, true
}

func (c *Cache[T]) ownedAll(refs []ref[T]) []T {
	out := make([]T, 0, len(refs))
	for _, r := range refs {
		if obj, ok := c.owned(r); ok {
			out = append(out, obj)
		}
	}
	return out
}

// each calls fn with every cached object, shared (decoded if compact, but
// not copied): for indexing and for handlers' events. c.mu must be held.
func (c *Cache[T]) each(fn func(key string, obj T, err error)) {
	if c.compact == nil {
		for key, obj := range c.items {
			fn(key, obj, nil)
		}
		return
	}
	for key := range c.compact.items {
		r, _ := c.compact.ref(key)
		obj, err := c.compact.shared(r)
		fn(key, obj, err)
	}
}
