package informer

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/object"
)

// NamespaceIndex names the index every Cache has: objects by namespace.
const NamespaceIndex = "namespace"

// IndexFunc returns the values under which obj is found in an index, e.g.
// the node name of a Pod or the UIDs of its owners.
type IndexFunc[T object.Object] func(obj T) ([]string, error)

// ErrUnknownIndex is returned for queries naming an index the Cache lacks.
var ErrUnknownIndex = errors.New("unknown index")

// Cache is a thread-safe store of objects keyed by object.Key
// ("namespace/name", or "name"), with named indexes. The informer fills it; everyone else reads it.
//
// By default objects in the cache are shared with every reader and with
// the informer's handlers: treat them as read-only. To change one,
// DeepCopy it first. A compact cache (see WithCompact and Compact) keeps
// its objects encoded instead, and its reads return objects the caller
// owns.
type Cache[T object.Object] struct {
	mu      sync.RWMutex
	items   map[string]T     // the shared form; empty when compact
	compact *compactStore[T] // the compact form, or nil
	onError func(error)      // reports a compact entry that fails to decode
	copies  bool             // reads of the shared form return deep copies
	indexes map[string]*index[T]
	// funcIndexes: an index calls an IndexFunc, which may read any of an
	// object's fields (indexes are never removed).
	funcIndexes bool
	syncedRV    string // the resourceVersion the contents reflect, when filled through Indexer
	// rv, when set, owns the answer instead: an informer's FIFO knows which
	// deltas and bookmarks have been applied.
	rv func() string
}

// LastSyncResourceVersion returns the resourceVersion the cache reflects:
// every change up to it, and none after it, has been applied.
func (c *Cache[T]) LastSyncResourceVersion() string {
	if c.rv != nil {
		return c.rv()
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.syncedRV
}

func (c *Cache[T]) setSyncedRV(rv string) {
	c.mu.Lock()
	c.syncedRV = rv
	c.mu.Unlock()
}

// index maps each indexed value to the set of keys of objects carrying it.
type index[T object.Object] struct {
	fn        IndexFunc[T] // nil for the built-in namespace index
	keysByVal map[string]map[string]struct{}
	// valsByKey remembers what a user IndexFunc returned for each key, so an
	// object leaves the index correctly even if the func later fails or
	// answers differently. The namespace index derives it from the object.
	valsByKey map[string][]string
	// The namespace index keeps no sets while every cached object is in
	// one namespace, as in a namespaced informer's cache, where its one set
	// would repeat every key (40 bytes an object, and a map insert each):
	// only names the namespace, n counts its objects, and its keys are the
	// cache's. The first object of a second namespace builds the sets
	// (spread), which then stay. User indexes are spread from the start.
	only   string
	n      int
	spread bool
}

// values returns the index values of obj.
func (ix *index[T]) values(obj T) ([]string, error) {
	if ix.fn == nil {
		return []string{obj.GetNamespace()}, nil
	}
	return ix.fn(obj)
}

// NewCache returns an empty cache with the namespace index.
func NewCache[T object.Object]() *Cache[T] {
	return &Cache[T]{
		items:   make(map[string]T),
		indexes: map[string]*index[T]{NamespaceIndex: {keysByVal: make(map[string]map[string]struct{})}}, // not spread
		onError: func(error) {},
	}
}

// NewCompactCache returns an empty compact cache with the namespace index:
// it keeps each object encoded (protobuf for the kinds that have it, a
// positional form of their fields or JSON for others) and decodes it on
// every read, so Get, List and ByIndex return objects the caller owns and
// may modify. See WithCompact.
func NewCompactCache[T object.Object]() (*Cache[T], error) {
	cd, err := newCodec[T]()
	if err != nil {
		return nil, fmt.Errorf("informer: %w", err)
	}
	c := NewCache[T]()
	c.compact = newCompactStore(cd)
	return c, nil
}

// Compact reports whether the cache keeps its objects encoded, and so
// whether its reads return objects the caller owns (true) or objects
// shared with every reader (false).
func (c *Cache[T]) Compact() bool { return c.compact != nil }

// AddIndex adds an index, indexing the objects already cached. Adding a
// name twice is an error. If fn fails for some objects the index is still
// added without them, and the error names each.
func (c *Cache[T]) AddIndex(name string, fn IndexFunc[T]) error {
	if fn == nil {
		return fmt.Errorf("informer: index %q: nil IndexFunc", name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.indexes[name]; ok {
		return fmt.Errorf("informer: index %q already exists", name)
	}
	ix := &index[T]{fn: fn, keysByVal: make(map[string]map[string]struct{}), valsByKey: make(map[string][]string), spread: true}
	c.indexes[name] = ix
	c.funcIndexes = true
	var errs []error
	c.each(func(key string, obj T, err error) {
		if err == nil {
			err = c.indexOne(name, ix, key, obj)
		}
		errs = append(errs, err)
	})
	return errors.Join(errs...)
}

// Get returns the object with the given namespace and name.
func (c *Cache[T]) Get(namespace, name string) (T, bool) {
	return c.GetByKey(object.FormatKey(types.NamespacedName{Namespace: namespace, Name: name}))
}

// GetByKey returns the object stored under key (see object.Key).
func (c *Cache[T]) GetByKey(key string) (T, bool) {
	c.mu.RLock()
	if c.compact != nil {
		r, ok := c.compact.ref(key)
		c.mu.RUnlock()
		if !ok {
			var zero T
			return zero, false
		}
		return c.owned(r)
	}
	obj, ok := c.items[key]
	c.mu.RUnlock()
	if ok && c.copies {
		obj = obj.DeepCopyObject().(T)
	}
	return obj, ok
}

// Len returns the number of cached objects.
func (c *Cache[T]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.len()
}

func (c *Cache[T]) len() int {
	if c.compact != nil {
		return len(c.compact.items)
	}
	return len(c.items)
}

// List returns every cached object, in no particular order.
func (c *Cache[T]) List() []T {
	c.mu.RLock()
	if c.compact != nil {
		refs := make([]ref[T], 0, len(c.compact.items))
		for key := range c.compact.items {
			r, _ := c.compact.ref(key)
			refs = append(refs, r)
		}
		c.mu.RUnlock()
		return c.ownedAll(refs)
	}
	defer c.mu.RUnlock()
	out := make([]T, 0, len(c.items))
	for _, obj := range c.items {
		out = append(out, obj)
	}
	return c.copied(out)
}

// copied returns objs, deep-copied if the cache's reads return copies.
func (c *Cache[T]) copied(objs []T) []T {
	if c.copies {
		for i, obj := range objs {
			objs[i] = obj.DeepCopyObject().(T)
		}
	}
	return objs
}

// ListKeys returns the keys of every cached object, in no particular order.
func (c *Cache[T]) ListKeys() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.keys()
}

// keys returns the keys of every cached object. c.mu must be held.
func (c *Cache[T]) keys() []string {
	return slices.AppendSeq(make([]string, 0, c.len()), c.allKeys())
}

// allKeys yields the key of every cached object. c.mu must be held.
func (c *Cache[T]) allKeys() iter.Seq[string] {
	if c.compact != nil {
		return maps.Keys(c.compact.items)
	}
	return maps.Keys(c.items)
}

// ByIndex returns the objects whose values in the named index include value.
func (c *Cache[T]) ByIndex(indexName, value string) ([]T, error) {
	c.mu.RLock()
	ix, ok := c.indexes[indexName]
	if !ok {
		c.mu.RUnlock()
		return nil, fmt.Errorf("informer: %w %q", ErrUnknownIndex, indexName)
	}
	keys, n := c.indexed(ix, value)
	if c.compact != nil {
		refs := make([]ref[T], 0, n)
		for key := range keys {
			r, _ := c.compact.ref(key)
			refs = append(refs, r)
		}
		c.mu.RUnlock()
		return c.ownedAll(refs), nil
	}
	defer c.mu.RUnlock()
	out := make([]T, 0, n)
	for key := range keys {
		out = append(out, c.items[key])
	}
	return c.copied(out), nil
}

// indexed returns the keys ix has under value, and how many. c.mu must be
// held.
func (c *Cache[T]) indexed(ix *index[T], value string) (iter.Seq[string], int) {
	switch {
	case ix.spread:
		set := ix.keysByVal[value]
		return maps.Keys(set), len(set)
	case ix.n > 0 && value == ix.only:
		return c.allKeys(), ix.n
	}
	return func(func(string) bool) {}, 0
}

// IndexKeys returns the keys of the objects whose values in the named index
// include value.
func (c *Cache[T]) IndexKeys(indexName, value string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ix, ok := c.indexes[indexName]
	if !ok {
		return nil, fmt.Errorf("informer: %w %q", ErrUnknownIndex, indexName)
	}
	keys, n := c.indexed(ix, value)
	out := make([]string, 0, n)
	for key := range keys {
		out = append(out, key)
	}
	return out, nil
}

// IndexValues returns, sorted, every value present in the named index.
func (c *Cache[T]) IndexValues(indexName string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ix, ok := c.indexes[indexName]
	if !ok {
		return nil
	}
	if !ix.spread {
		if ix.n == 0 {
			return []string{}
		}
		return []string{ix.only}
	}
	out := make([]string, 0, len(ix.keysByVal))
	for v := range ix.keysByVal {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// ValuesOf returns the values the named index would file obj under: what
// its IndexFunc returns for obj, or obj's namespace for NamespaceIndex.
// obj need not be in the cache.
func (c *Cache[T]) ValuesOf(indexName string, obj T) ([]string, error) {
	c.mu.RLock()
	ix, ok := c.indexes[indexName]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("informer: %w %q", ErrUnknownIndex, indexName)
	}
	vals, err := ix.values(obj)
	if err != nil {
		return nil, fmt.Errorf("informer: index %q failed for %s: %w", indexName, object.Key(obj), err)
	}
	return vals, nil
}

// IndexNames returns the names of the cache's indexes, sorted.
func (c *Cache[T]) IndexNames() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.indexes))
	for name := range c.indexes {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
