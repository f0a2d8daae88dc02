package informer

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/steadyctl/steady/object"
)

// Indexer returns a view of the cache that satisfies client-go's
// cache.Indexer, so generated typed listers read steady's cache:
//
//	pods := corev1listers.NewPodLister(podCache.Indexer())
//
// Reads through the view see exactly what the typed methods see, and like
// them do not wait: a lister has no context to wait with. As with
// client-go's listers, wait for the informer (WaitForSync, or a manager's
// readiness) before trusting a lister's "not found". Its mutating methods exist to satisfy the interface and change the cache
// directly; only use them in tests: the informer owns the cache.
func (c *Cache[T]) Indexer() cache.Indexer { return indexerView[T]{c} }

type indexerView[T object.Object] struct{ c *Cache[T] }

var _ cache.Indexer = indexerView[object.Object]{}

func (v indexerView[T]) typed(obj interface{}) (T, error) {
	t, ok := obj.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("informer: cache of %T got %T", zero, obj)
	}
	return t, nil
}

func (v indexerView[T]) Add(obj interface{}) error { return v.Update(obj) }
func (v indexerView[T]) Update(obj interface{}) error {
	t, err := v.typed(obj)
	if err != nil {
		return err
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	_, err = v.c.put(object.Key(t), t, true)
	return err
}

func (v indexerView[T]) Delete(obj interface{}) error {
	key, err := keyOf(obj)
	if err != nil {
		return err
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	v.c.remove(key)
	return nil
}

func (v indexerView[T]) List() []interface{} {
	items := v.c.List()
	out := make([]interface{}, len(items))
	for i, obj := range items {
		out[i] = obj
	}
	return out
}

func (v indexerView[T]) ListKeys() []string { return v.c.ListKeys() }

func (v indexerView[T]) Get(obj interface{}) (interface{}, bool, error) {
	key, err := keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return v.GetByKey(key)
}

func (v indexerView[T]) GetByKey(key string) (interface{}, bool, error) {
	obj, ok := v.c.GetByKey(key)
	if !ok {
		return nil, false, nil
	}
	return obj, true, nil
}

func (v indexerView[T]) Replace(list []interface{}, rv string) error {
	typed := make([]T, 0, len(list))
	for _, obj := range list {
		t, err := v.typed(obj)
		if err != nil {
			return err
		}
		typed = append(typed, t)
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	for _, key := range v.c.keys() {
		v.c.remove(key)
	}
	var errs []error
	for _, t := range typed {
		_, err := v.c.put(object.Key(t), t, false)
		errs = append(errs, err)
	}
	v.c.syncedRV = rv
	return errors.Join(errs...)
}

func (v indexerView[T]) Resync() error { return nil }

func (v indexerView[T]) LastStoreSyncResourceVersion() string { return v.c.LastSyncResourceVersion() }

func (v indexerView[T]) Bookmark(rv string) { v.c.setSyncedRV(rv) }

// Index returns the objects sharing an index value with obj. For the
// namespace index obj may be any object with metadata (generated listers pass
// a bare *metav1.ObjectMeta); for user indexes it must be a T.
func (v indexerView[T]) Index(indexName string, obj interface{}) ([]interface{}, error) {
	var vals []string
	if indexName == NamespaceIndex {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("informer: index %q: %w", indexName, err)
		}
		vals = []string{m.GetNamespace()}
	} else {
		t, err := v.typed(obj)
		if err != nil {
			return nil, err
		}
		v.c.mu.RLock()
		ix, ok := v.c.indexes[indexName]
		v.c.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("informer: %w %q", ErrUnknownIndex, indexName)
		}
		if vals, err = ix.fn(t); err != nil {
			return nil, fmt.Errorf("informer: index %q failed for %s: %w", indexName, object.Key(t), err)
		}
	}
	seen := make(map[string]struct{})
	var out []interface{}
	for _, val := range vals {
		keys, err := v.c.IndexKeys(indexName, val)
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			if _, dup := seen[key]; dup {
				continue
			}
			seen[key] = struct{}{}
			if obj, ok := v.c.GetByKey(key); ok {
				out = append(out, obj)
			}
		}
	}
	return out, nil
}

func (v indexerView[T]) IndexKeys(indexName, value string) ([]string, error) {
	return v.c.IndexKeys(indexName, value)
}

func (v indexerView[T]) ListIndexFuncValues(indexName string) []string {
	return v.c.IndexValues(indexName)
}

func (v indexerView[T]) ByIndex(indexName, value string) ([]interface{}, error) {
	items, err := v.c.ByIndex(indexName, value)
	if err != nil {
		return nil, err
	}
	out := make([]interface{}, len(items))
	for i, obj := range items {
		out[i] = obj
	}
	return out, nil
}

// GetIndexers returns untyped wrappers of the cache's index funcs.
func (v indexerView[T]) GetIndexers() cache.Indexers {
	v.c.mu.RLock()
	defer v.c.mu.RUnlock()
	out := make(cache.Indexers, len(v.c.indexes))
	for name, ix := range v.c.indexes {
		out[name] = func(obj interface{}) ([]string, error) {
			t, err := v.typed(obj)
			if err != nil {
				return nil, err
			}
			return ix.values(t)
		}
	}
	return out
}

// AddIndexers adds client-go style index funcs as typed indexes.
func (v indexerView[T]) AddIndexers(indexers cache.Indexers) error {
	var errs []error
	for name, fn := range indexers {
		errs = append(errs, v.c.AddIndex(name, func(obj T) ([]string, error) { return fn(obj) }))
	}
	return errors.Join(errs...)
}

// keyOf computes the key of any object with metadata, or of a client-go
// tombstone, for the untyped view.
func keyOf(obj interface{}) (string, error) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("informer: no key for %T: %w", obj, err)
	}
	return object.Key(m), nil
}
