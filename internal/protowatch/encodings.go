package protowatch

import "sync"

// Encodings holds the protobuf of objects a Kind decoded from watch
// events, for a compact cache that keeps objects encoded: it takes an
// object's encoding from here instead of encoding the object again (an
// eighth of the CPU of an informer's initial sync). An encoding is the
// object's bytes as the server sent them, without managedFields if the
// Kind drops them, cut out while decoding: bytes that decode to the
// object the Kind made from them.
//
// An encoding is found by the object's resourceVersion, and given out only
// for the object of that namespace and name, so an object other than the
// one decoded never gets another's bytes. One nobody takes (a list that
// failed half way, say) is dropped after a generation more have been
// kept, so the table stays bounded. It is safe for concurrent use.
//
// The encodings of objects a WatchList decoded only the metadata of are
// kept apart, and never dropped until taken or DropPartial: they hold the
// rest of their objects.
type Encodings struct {
	mu        sync.Mutex
	cur, prev map[string]encoding // nil when empty after a large list
	gen       int
	grown     bool // cur has held more than smallTable since the maps were made
	partial   map[string]encoding
}

type encoding struct {
	namespace, name string
	data            []byte
}

// defaultGeneration is how many encodings are kept before the older half
// of the table goes: more than a cache is ever behind its watch in
// practice, a few megabytes at most if nobody takes them.
const defaultGeneration = 4096

// NewEncodings returns an empty table.
func NewEncodings() *Encodings { return newEncodings(defaultGeneration) }

// smallTable is the size up to which emptied tables are kept for reuse. A
// Go map keeps its memory when emptied: the tables that held an initial
// list of thousands (half a megabyte at 4,096 a table) are let go once
// the cache has taken it all, and small ones made for the watch.
const smallTable = 64

func newEncodings(gen int) *Encodings { return &Encodings{gen: gen} }

func (e *Encodings) keep(rv, namespace, name string, data []byte) {
	if rv == "" {
		return
	}
	e.mu.Lock()
	switch {
	case e.cur == nil:
		e.cur = make(map[string]encoding)
	case len(e.cur) >= e.gen:
		e.prev, e.cur = e.cur, make(map[string]encoding)
	}
	e.cur[rv] = encoding{namespace: namespace, name: name, data: data}
	if len(e.cur) > smallTable {
		e.grown = true
	}
	e.mu.Unlock()
}

// Take returns, and forgets, the encoding kept for the object of
// namespace and name at resourceVersion rv, or nil. The caller owns it.
// partial reports that a WatchList decoded only the object's metadata:
// the encoding then holds the rest of it.
func (e *Encodings) Take(rv, namespace, name string) (data []byte, partial bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if enc, ok := e.partial[rv]; ok && enc.namespace == namespace && enc.name == name {
		delete(e.partial, rv)
		if len(e.partial) == 0 {
			e.partial = nil // a Go map keeps its memory: let the list's go
		}
		return enc.data, true
	}
	for _, m := range [2]map[string]encoding{e.cur, e.prev} {
		if enc, ok := m[rv]; ok {
			delete(m, rv)
			if e.grown && len(e.cur) == 0 && len(e.prev) == 0 {
				e.cur, e.prev, e.grown = nil, nil, false
			}
			if enc.namespace == namespace && enc.name == name {
				return enc.data, false
			}
			return nil, false // another object's: of no use to anyone now
		}
	}
	return nil, false
}

// Len returns how many encodings are waiting to be taken.
func (e *Encodings) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.cur) + len(e.prev) + len(e.partial)
}

// keepPartial keeps data, the encoding of a partly decoded object, unless
// it cannot be told from another's by its resourceVersion: then it
// reports false, for the object to be decoded whole.
func (e *Encodings) keepPartial(rv, namespace, name string, data []byte) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if rv == "" {
		return false
	}
	if e.partial == nil {
		e.partial = make(map[string]encoding)
	}
	if old, ok := e.partial[rv]; ok && (old.namespace != namespace || old.name != name) {
		return false
	}
	e.partial[rv] = encoding{namespace: namespace, name: name, data: data}
	return true
}

// DropPartial forgets the encodings of partly decoded objects nobody
// took: those of a list that failed half way, once a later one has been
// taken.
func (e *Encodings) DropPartial() {
	e.mu.Lock()
	e.partial = nil
	e.mu.Unlock()
}
