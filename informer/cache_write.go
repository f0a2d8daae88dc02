package informer

import (
	"errors"
	"fmt"

	"github.com/steadyctl/steady/object"
)

// The write side of Cache is unexported: only the informer changes it, and it
// does so one batch at a time under a single write lock, so readers never see
// half of a relist.

// prior is what a key held before a write: the object itself in a shared
// cache, a reference to it in a compact one (decoded only if an event
// needs it).
type prior[T object.Object] struct {
	existed bool
	obj     T
	ref     ref[T]
	same    bool // a compact cache's: the new object encodes to the same bytes
	// notStored: a compact cache could not encode the new object and
	// keeps what it had.
	notStored bool
	stored    []byte // a compact cache's encoding of the new object
	// partial: the new object has only its metadata decoded, the rest in
	// stored (see compactStore.put); whole: the new object decoded whole,
	// in place of one that had only its metadata.
	partial bool
	whole   T
}

// put stores obj under key and re-indexes it, returning what key held. A
// compact cache keeps obj decoded among its recent objects if recent.
// c.mu must be held for writing. An IndexFunc error leaves obj stored but
// missing from that index, and is returned naming the object. An object a
// compact cache cannot encode is not stored (the cache keeps the state it
// had), and the error names it.
func (c *Cache[T]) put(key string, obj T, recent bool) (old prior[T], err error) {
	if c.compact != nil {
		if obj, err = c.compact.put(key, obj, recent, c.funcIndexes, &old); err != nil {
			return prior[T]{notStored: true}, err
		}
	} else {
		old.obj, old.existed = c.items[key]
		c.items[key] = obj
	}
	if old.existed {
		c.unindex(key)
	}
	for name, ix := range c.indexes {
		if e := c.indexOne(name, ix, key, obj); e != nil {
			err = errors.Join(err, e)
		}
	}
	return old, err
}

// dropPartial forgets the bytes of partly decoded objects that a list
// which failed half way left behind, once the first list is in.
func (c *Cache[T]) dropPartial() {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.compact != nil && c.compact.wire != nil {
		c.compact.wire.DropPartial()
	}
}

// remove deletes key, returning what it held. c.mu must be held for writing.
func (c *Cache[T]) remove(key string) (old prior[T]) {
	if c.compact != nil {
		old.ref, old.existed = c.compact.remove(key)
	} else if old.obj, old.existed = c.items[key]; old.existed {
		delete(c.items, key)
	}
	if old.existed {
		c.unindex(key)
	}
	return old
}

// object returns the object old refers to, for an event: handlers share
// it, so a compact cache decodes it only if it is not recent.
func (c *Cache[T]) object(old prior[T]) (T, error) {
	if c.compact == nil {
		return old.obj, nil
	}
	return c.compact.shared(old.ref)
}

// unchanged reports whether obj, just stored, is what old was: a relist
// sends every object again, and handlers hear only of changed ones.
func (c *Cache[T]) unchanged(old prior[T], obj T) bool {
	if c.compact != nil {
		return old.same
	}
	return old.obj.GetResourceVersion() == obj.GetResourceVersion()
}

func (c *Cache[T]) indexOne(name string, ix *index[T], key string, obj T) error {
	if ix.fn == nil { // the namespace index: no func call, no slice
		c.addNamespace(ix, obj.GetNamespace(), key)
		return nil
	}
	vals, err := ix.fn(obj)
	if err != nil {
		return fmt.Errorf("informer: index %q failed for %s: %w", name, key, err)
	}
	for _, v := range vals {
		ix.add(v, key)
	}
	if len(vals) > 0 {
		ix.valsByKey[key] = vals
	}
	return nil
}

// unindex removes key from every index, with the values it was indexed
// under: remembered for user indexes, the key's own for the namespace one.
func (c *Cache[T]) unindex(key string) {
	for _, ix := range c.indexes {
		if ix.fn == nil {
			ix.dropNamespace(namespaceOf(key), key)
			continue
		}
		for _, v := range ix.valsByKey[key] {
			ix.drop(v, key)
		}
		delete(ix.valsByKey, key)
	}
}

// addNamespace indexes key, just stored, under its namespace ns in the
// namespace index ix (see index).
func (c *Cache[T]) addNamespace(ix *index[T], ns, key string) {
	switch {
	case ix.spread:
		ix.add(ns, key)
	case ix.n == 0:
		ix.only, ix.n = ns, 1
	case ns == ix.only:
		ix.n++
	default: // a second namespace: index every key stored, this one included
		ix.spread, ix.only, ix.n = true, "", 0
		for k := range c.allKeys() {
			ix.add(namespaceOf(k), k)
		}
	}
}

// dropNamespace removes key, of namespace ns, from the namespace index ix.
func (ix *index[T]) dropNamespace(ns, key string) {
	if ix.spread {
		ix.drop(ns, key)
		return
	}
	if ix.n--; ix.n == 0 {
		ix.only = ""
	}
}

func (ix *index[T]) add(value, key string) {
	set := ix.keysByVal[value]
	if set == nil {
		set = make(map[string]struct{})
		ix.keysByVal[value] = set
	}
	set[key] = struct{}{}
}

func (ix *index[T]) drop(value, key string) {
	set := ix.keysByVal[value]
	delete(set, key)
	if len(set) == 0 {
		delete(ix.keysByVal, value)
	}
}
