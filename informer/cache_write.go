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
	var errs []error
	var buf [1]string
	for name, ix := range c.indexes {
		errs = append(errs, c.indexOne(name, ix, key, obj, buf[:0]))
	}
	return old, existed, errors.Join(errs...)
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

func (c *Cache[T]) indexOne(name string, ix *index[T], key string, obj T, buf []string) error {
	vals, err := ix.values(obj, buf)
	if err != nil {
		return fmt.Errorf("informer: index %q failed for %s: %w", name, key, err)
	}
	for _, v := range vals {
		set := ix.keysByVal[v]
		if set == nil {
			set = make(map[string]struct{})
			ix.keysByVal[v] = set
		}
		set[key] = struct{}{}
	}
	if ix.valsByKey != nil && len(vals) > 0 {
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

func (ix *index[T]) drop(value, key string) {
	set := ix.keysByVal[value]
	delete(set, key)
	if len(set) == 0 {
		delete(ix.keysByVal, value)
	}
}
