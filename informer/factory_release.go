package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/steadyctl/steady/object"
)

// ErrReleased is wrapped by the errors of an informer its factory has
// released (see Factory): AddHandler, and WaitForSync, which wraps
// ErrNotSynced too. Current returns the informer to use instead.
var ErrReleased = errors.New("informer released by its factory: its last handler was removed")

// factoryRef ties a factory's informer to its place in the factory. Its
// fields are guarded by the factory's mutex.
type factoryRef struct {
	f    *Factory
	key  factoryKey
	stop context.CancelFunc // set while the factory runs the informer
}

// releaser is the part of a factory's informer that the release needs
// without knowing T.
type releaser interface {
	ref() *factoryRef
	releaseIfIdle() bool
	settings() any
}

// settings is what a fresh informer for a released one's key inherits, so
// that releasing an informer changes nothing its next users can observe
// but the relist.
type settings[T object.Object] struct {
	indexes    map[string]IndexFunc[T]
	transform  func(T) (T, error)
	errHandler func(error)
	shard      string
}

// own records inf as the factory's informer for key, with renew to ask the
// factory again (for the key as asked, before namespace resolution), and
// gives it the settings of the informer released before it under key, if
// any. f.mu is held and inf has not started.
func own[T object.Object](f *Factory, key factoryKey, inf *Informer[T], renew func() (*Informer[T], error)) {
	inf.owner = &factoryRef{f: f, key: key}
	inf.renew = renew
	s, ok := f.inherited[key].(settings[T])
	if !ok {
		return
	}
	delete(f.inherited, key)
	inf.transform, inf.errHandler, inf.shardSelector = s.transform, s.errHandler, s.shard
	for name, fn := range s.indexes {
		if err := inf.cache.AddIndex(name, fn); err != nil {
			inf.log.Error(err, "re-adding an index of the released informer")
		}
	}
}

// Released reports whether the factory that handed out inf has released it
// (see Factory): it no longer runs, its cache is empty, and Current returns
// the informer the factory hands out now. Informers made with New are never
// released.
func (inf *Informer[T]) Released() bool { return inf.released.Load() }

// Current returns the informer inf's factory hands out now for inf's kind,
// namespace and selectors: inf itself until the factory releases it, then a
// fresh one, as For would return (started at once if the factory runs, and
// listing everything again), with the released one's indexes, transform
// and watch error handler. For an informer made with New it returns inf.
func (inf *Informer[T]) Current() (*Informer[T], error) {
	if !inf.released.Load() {
		return inf, nil
	}
	next, err := inf.renew()
	if err != nil {
		return nil, fmt.Errorf("informer %s: renewing the released informer: %w", inf.name, err)
	}
	return next, nil
}

func (inf *Informer[T]) ref() *factoryRef { return inf.owner }

// releaseIfIdle marks inf released unless a handler was added since its
// last one was removed. The factory's mutex is held.
func (inf *Informer[T]) releaseIfIdle() bool {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if len(inf.listeners) > 0 || inf.released.Load() {
		return false
	}
	inf.released.Store(true)
	inf.sync.release()
	return true
}

// settings returns what a successor inherits. The factory's mutex is held.
func (inf *Informer[T]) settings() any {
	inf.mu.Lock()
	s := settings[T]{transform: inf.transform, errHandler: inf.errHandler, shard: inf.shardSelector, indexes: map[string]IndexFunc[T]{}}
	inf.mu.Unlock()
	inf.cache.mu.RLock()
	for name, ix := range inf.cache.indexes {
		if ix.fn != nil { // not the built-in namespace index
			s.indexes[name] = ix.fn
		}
	}
	inf.cache.mu.RUnlock()
	return s
}

// lastHandlerRemoved offers a factory's informer for release.
func (inf *Informer[T]) lastHandlerRemoved() {
	if inf.owner != nil {
		inf.owner.f.release(inf)
	}
	if inf.released.Load() {
		inf.endProgress() // it may never have run, so its Start would not
	}
}

// dropState lets go of everything a released informer held once it has
// stopped, so its objects become garbage even while someone still holds the
// Informer. inf.mu is held.
func (inf *Informer[T]) dropState() {
	inf.cache.clear()
	inf.notes = nil
}

// clear removes every object, keeping the indexes' definitions.
func (c *Cache[T]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = make(map[string]T)
	if c.compact != nil {
		c.compact.clear()
	}
	for _, ix := range c.indexes {
		ix.keysByVal = make(map[string]map[string]struct{})
		if ix.fn == nil {
			ix.only, ix.n, ix.spread = "", 0, false
		} else {
			ix.valsByKey = make(map[string][]string)
		}
	}
}

// KeepInformers makes the factory release no more informers (see
// "Releasing informers" in the package documentation): from then on they
// all run until Start returns. A manager calls it as its shutdown begins,
// so that controllers stopping one after another leave the caches that the
// last reconciles of the others still read.
func (f *Factory) KeepInformers() {
	f.mu.Lock()
	f.keep = true
	f.mu.Unlock()
}

// release stops and forgets r, the factory's informer, if it still has no
// handler. A factory that is stopping keeps its informers: they stop with
// it, and readers during shutdown keep their caches.
func (f *Factory) release(r runner) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ref := r.ref()
	if f.keep || f.informers[ref.key] != r || (f.runCtx != nil && f.runCtx.Err() != nil) || !r.releaseIfIdle() {
		return
	}
	delete(f.informers, ref.key)
	if f.inherited == nil {
		f.inherited = make(map[factoryKey]any)
	}
	f.inherited[ref.key] = r.settings()
	if ref.stop != nil {
		ref.stop()
	}
	f.o.log.V(1).Info("informer released: its last handler was removed", "informer", r.Name())
}
