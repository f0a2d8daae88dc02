package testkit

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/steadyctl/steady/reconcile"
)

// Keys records object keys ("namespace/name", as object.FormatKey writes
// them) in the order they come, safe for concurrent use. As a
// reconcile.Reconciler it records the key of every request it is asked
// for and succeeds; an event handler records with Add. The zero Keys is
// empty and ready to use.
type Keys struct {
	mu   sync.Mutex
	keys []string
}

// Reconcile records req's key.
func (k *Keys) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	k.Add(req.String())
	return reconcile.Result{}, nil
}

// Add records key.
func (k *Keys) Add(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys = append(k.keys, key)
}

// All returns every key recorded, in order, repeats included.
func (k *Keys) All() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.keys)
}

// Len returns how many keys were recorded, repeats included.
func (k *Keys) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.keys)
}

// Has reports whether key was recorded.
func (k *Keys) Has(key string) bool { return k.Count(key) > 0 }

// Count returns how many times key was recorded.
func (k *Keys) Count(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, seen := range k.keys {
		if seen == key {
			n++
		}
	}
	return n
}

// Counts returns how many times each key was recorded.
func (k *Keys) Counts() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make(map[string]int, len(k.keys))
	for _, key := range k.keys {
		out[key]++
	}
	return out
}

// Distinct returns how many different keys were recorded.
func (k *Keys) Distinct() int { return len(k.Counts()) }

// InNamespace returns the keys recorded of objects in namespace ns, in
// order, repeats included.
func (k *Keys) InNamespace(ns string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, key := range k.keys {
		if strings.HasPrefix(key, ns+"/") {
			out = append(out, key)
		}
	}
	return out
}
