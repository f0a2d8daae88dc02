package informer

import (
	"errors"
	"fmt"
)

// The write side of Cache is unexported: only the informer changes it, and it
// does so one batch at a time under a single write lock, so readers never see
// half of a relist.

// put stores obj under key and re-indexes it, returning the previous object.
// c.mu must be held for writing. An IndexFunc error leaves obj stored but
// missing from that index, and is returned naming the object.
func (c *Cache[T]) put(key string, obj T) (old T, existed bool, err error) {
	old, existed = c.items[key]
	if existed {
		c.unindex(key, old)
	}
	c.items[key] = obj
	for name, ix := range c.indexes {
		if e := c.indexOne(name, ix, key, obj); e != nil {
			err = errors.Join(err, e)
		}
	}
	return old, existed, err
}

// remove deletes key, returning the object it held. c.mu must be held for writing.
func (c *Cache[T]) remove(key string) (old T, existed bool) {
	old, existed = c.items[key]
	if existed {
		c.unindex(key, old)
		delete(c.items, key)
	}
	return old, existed
}

func (c *Cache[T]) indexOne(name string, ix *index[T], key string, obj T) error {
	if ix.fn == nil { // the namespace index: no func call, no slice
		ix.add(obj.GetNamespace(), key)
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

func (c *Cache[T]) unindex(key string, old T) {
	for _, ix := range c.indexes {
		if ix.valsByKey == nil {
			ix.drop(old.GetNamespace(), key)
			continue
		}
		for _, v := range ix.valsByKey[key] {
			ix.drop(v, key)
		}
		delete(ix.valsByKey, key)
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
