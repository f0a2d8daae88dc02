package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// syncState tracks an informer's way to its first complete list, for readers
// that must not answer from an empty cache.
type syncState struct {
	// synced is the informer's HasSynced: read on every client read, so
	// without the lock; written under it, so waiters see it with the rest.
	synced  atomic.Bool
	mu      sync.Mutex
	started bool
	gone    bool          // released by its factory
	lastErr error         // the latest list/watch error before the first sync
	changed chan struct{} // closed and replaced whenever synced or the above changes
}

func newSyncState() *syncState { return &syncState{changed: make(chan struct{})} }

// update applies fn to the state under its lock and wakes every waiter.
func (s *syncState) update(fn func(*syncState)) {
	s.mu.Lock()
	fn(s)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *syncState) setStarted() { s.update(func(s *syncState) { s.started = true }) }

func (s *syncState) setSynced() {
	s.update(func(s *syncState) {
		if !s.gone { // a list that lands after the release fills a cache about to be emptied
			s.synced.Store(true)
			s.lastErr = nil
		}
	})
}

// setError records a list or watch error; once synced they no longer matter
// to readers (the cache stays authoritative up to its resourceVersion).
func (s *syncState) setError(err error) {
	s.update(func(s *syncState) {
		if !s.synced.Load() {
			s.lastErr = err
		}
	})
}

// SyncError returns the error of the informer's latest failed attempt to
// list, while it has not yet completed its first list; nil once it has, or
// while no attempt has failed.
func (inf *Informer[T]) SyncError() error {
	inf.sync.mu.Lock()
	defer inf.sync.mu.Unlock()
	return inf.sync.lastErr
}

// WaitForSync waits until the informer's cache holds its first complete
// list, so that reads from it are authoritative. It returns an error
// wrapping ErrNotSynced when ctx ends first (saying whether the informer
// was running at all), or at once when listing failed with an error the
// API server will keep giving (forbidden by RBAC, unauthorized, unknown
// resource, a bad selector). The error names the informer and the reason.
// Transient errors (timeouts, a restarting server) are retried by the
// informer and waited out. It may be called before Start, as client-go's
// WaitForCacheSync is after "go informer.Run(stopCh)".
//
// The error never wraps the API server's error itself, so a NotFound from
// listing an unknown resource is not mistaken for a missing object by
// apierrors.IsNotFound.
func (inf *Informer[T]) WaitForSync(ctx context.Context) error {
	for {
		inf.sync.mu.Lock()
		started, synced, lastErr, changed := inf.sync.started, inf.sync.synced.Load(), inf.sync.lastErr, inf.sync.changed
		gone := inf.sync.gone
		inf.sync.mu.Unlock()
		switch {
		case gone:
			return fmt.Errorf("informer %s: %w: %w", inf.name, ErrNotSynced, ErrReleased)
		case synced:
			return nil
		case lastErr != nil && permanent(lastErr):
			return fmt.Errorf("informer %s: %w: cannot list: %v", inf.name, ErrNotSynced, lastErr)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if !started {
				return fmt.Errorf("informer %s: %w: it is not running: %w", inf.name, ErrNotSynced, context.Cause(ctx))
			}
			if lastErr != nil {
				return fmt.Errorf("informer %s: %w (last error: %v): %w", inf.name, ErrNotSynced, lastErr, context.Cause(ctx))
			}
			return fmt.Errorf("informer %s: %w: %w", inf.name, ErrNotSynced, context.Cause(ctx))
		}
	}
}

// permanent reports whether the API server will answer a list the same way
// on every retry until someone changes the cluster (RBAC, a CRD) or the
// request.
func permanent(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) ||
		apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err) ||
		apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err)
}

// stopped records that the informer no longer runs: if it never synced,
// readers must not wait for it.
func (s *syncState) stopped() {
	s.update(func(s *syncState) {
		if !s.synced.Load() {
			s.started = false
		}
	})
}

// release records that the factory released the informer: its cache is
// about to be emptied, so it is no longer synced, and waiters give up.
func (s *syncState) release() {
	s.update(func(s *syncState) {
		s.synced.Store(false)
		s.started, s.gone = false, true
	})
}
