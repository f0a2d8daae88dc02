package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
)

// What the reconciler tells: its counts, for the story's summary, and its
// notes, one line of narration per reconcile.

// counts is what the reconciler has done, for the summary.
type counts struct {
	reconciles, created, scaled, statusWrites, refused, deleted atomic.Int32

	mu      sync.Mutex
	cleaned map[types.UID]bool // Foos whose clean-up succeeded
}

// cleanedUp records a successful clean-up of the Foo with uid. Clean-up can
// run twice for one deletion (when the cache has not yet seen the
// finalizer go), so the summary counts Foos, not runs.
func (c *counts) cleanedUp(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cleaned == nil {
		c.cleaned = map[types.UID]bool{}
	}
	c.cleaned[uid] = true
}

func (c *counts) cleanups() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int32(len(c.cleaned))
}

// notes collects what one reconcile changed, for its line of narration.
type notes []string

func (n *notes) add(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

type notesKey struct{}

// notesOf returns the narration of the reconcile ctx belongs to.
func notesOf(ctx context.Context) *notes {
	if n, ok := ctx.Value(notesKey{}).(*notes); ok {
		return n
	}
	return new(notes)
}
