package serving

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// maxDecisions bounds each cache: beyond it expired entries are dropped,
// and if none has expired the cache starts over. A flood of distinct
// forged tokens then costs reviews, not memory.
const maxDecisions = 4096

// decisions caches the answers of one kind of review by key, each for the
// TTL its outcome calls for, and lets concurrent callers with the same key
// share one review.
type decisions[V any] struct {
	clock     clock.PassiveClock
	ttl       time.Duration // for positive answers
	deniedTTL time.Duration // for negative ones

	mu       sync.Mutex
	entries  map[string]decision[V]
	inFlight map[string]*review[V]
}

type decision[V any] struct {
	value   V
	expires time.Time
}

// review is a review in progress; done is closed when value and err are set.
type review[V any] struct {
	done  chan struct{}
	value V
	err   error
}

func newDecisions[V any](c clock.PassiveClock, ttl, deniedTTL time.Duration) *decisions[V] {
	return &decisions[V]{clock: c, ttl: ttl, deniedTTL: deniedTTL,
		entries: map[string]decision[V]{}, inFlight: map[string]*review[V]{}}
}

// get returns the cached answer for key, or makes one review with do,
// which reports whether its answer is positive. Errors are not cached.
func (d *decisions[V]) get(key string, do func() (V, bool, error)) (V, error) {
	d.mu.Lock()
	if e, ok := d.entries[key]; ok {
		if d.clock.Now().Before(e.expires) {
			d.mu.Unlock()
			return e.value, nil
		}
		delete(d.entries, key)
	}
	if r, ok := d.inFlight[key]; ok {
		d.mu.Unlock()
		<-r.done
		return r.value, r.err
	}
	r := &review[V]{done: make(chan struct{})}
	d.inFlight[key] = r
	d.mu.Unlock()

	var positive bool
	r.value, positive, r.err = do()

	d.mu.Lock()
	delete(d.inFlight, key)
	ttl := d.deniedTTL
	if positive {
		ttl = d.ttl
	}
	if r.err == nil && ttl > 0 {
		d.store(key, decision[V]{r.value, d.clock.Now().Add(ttl)})
	}
	d.mu.Unlock()
	close(r.done)
	return r.value, r.err
}

// store adds an entry, making room first if the cache is full; d.mu is held.
func (d *decisions[V]) store(key string, e decision[V]) {
	if len(d.entries) >= maxDecisions {
		now := d.clock.Now()
		for k, old := range d.entries {
			if !now.Before(old.expires) {
				delete(d.entries, k)
			}
		}
		if len(d.entries) >= maxDecisions {
			clear(d.entries)
		}
	}
	d.entries[key] = e
}
