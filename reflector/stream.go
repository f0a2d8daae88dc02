package reflector

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// errStreamUnsupported means the server (or ListerWatcher) cannot stream a
// list; the reflector lists and watches instead from then on.
var errStreamUnsupported = errors.New("streamed list (WatchList) not supported")

func (r *Reflector[T]) canStream() bool {
	if r.o.watchList == WatchListOff || r.o.initialRV == "0" {
		return false
	}
	r.mu.Lock()
	off := r.streamOff
	r.mu.Unlock()
	if off {
		return false
	}
	if r.o.watchList == WatchListOn {
		return true
	}
	s, ok := r.lw.(StreamingLister)
	return ok && s.SupportsWatchList()
}

// stream gets a complete list as the initial events of a watch (WatchList:
// sendInitialEvents=true, resourceVersionMatch=NotOlderThan), up to the
// bookmark annotated k8s.io/initial-events-end, hands it to the store as one
// Replace, and then keeps consuming the same watch.
//
// It never waits on a server that does not stream: a rejected request, a
// bookmark without the annotation (the server ignored sendInitialEvents), an
// update or delete among the initial events, a stream that closes early, or
// no event at all within the stream guard — each returns errStreamUnsupported.
func (r *Reflector[T]) stream(ctx context.Context) error {
	r.mu.Lock()
	rv, f := r.relistRV, r.shard
	r.mu.Unlock()
	if err := r.probeShard(ctx, f); err != nil {
		return fmt.Errorf("shard selector probe: %w", err)
	}
	err := r.streamFrom(ctx, rv, f)
	if err != nil && rv != "" && (isExpired(err) || isTooLargeRV(err)) {
		r.log.Info("streamed relist at the last seen resourceVersion failed; streaming a consistent list", "error", err.Error())
		err = r.streamFrom(ctx, "", f)
	}
	return err
}

// streamFrom streams a list of the shard f selects (nil: everything). The
// stream is filtered client-side whatever the probe said: nothing in it
// tells whether the server applied the selector.
func (r *Reflector[T]) streamFrom(ctx context.Context, rv string, f *shardFilter) error {
	yes := true
	w, err := r.lw.Watch(ctx, metav1.ListOptions{
		SendInitialEvents:    &yes,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		ResourceVersion:      rv,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
		ShardSelector:        f.String(),
	})
	if err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			return fmt.Errorf("%w: %w", errStreamUnsupported, err)
		}
		return err
	}
	defer w.Stop()

	items := r.newListBuffer()
	guard := r.o.clock.NewTimer(r.o.streamGuard)
	defer guard.Stop()
	for {
		ev, ok, woke := next(ctx, w.ResultChan(), guard.C())
		switch {
		case woke == cancelled:
			return nil
		case woke == timedOut:
			return fmt.Errorf("%w: no event for %s", errStreamUnsupported, r.o.streamGuard)
		case !ok:
			return fmt.Errorf("%w: stream closed before the initial-events-end bookmark", errStreamUnsupported)
		}
		guard.Reset(r.o.streamGuard)
		done, err := r.collect(ev, items, f)
		if err != nil {
			return err
		}
		if done != "" {
			if err := r.replace(items.items, done, f); err != nil {
				return err
			}
			return r.consume(ctx, w, f)
		}
	}
}

// collect takes one event of the initial stream. It returns the list's
// resourceVersion once the closing bookmark arrives.
func (r *Reflector[T]) collect(ev watch.Event, items *listBuffer[T], f *shardFilter) (endRV string, err error) {
	switch ev.Type {
	case watch.Added:
		t, ok, err := r.typed(ev.Object, f)
		if err != nil {
			r.report(err)
		}
		if ok {
			items.add(t)
		}
		return "", nil
	case watch.Bookmark:
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return "", fmt.Errorf("bookmark without metadata: %w", err)
		}
		if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
			return "", fmt.Errorf("%w: bookmark without %s", errStreamUnsupported, metav1.InitialEventsAnnotationKey)
		}
		return m.GetResourceVersion(), nil
	case watch.Error:
		return "", apierrors.FromObject(ev.Object)
	default:
		return "", fmt.Errorf("%w: %s event among the initial events", errStreamUnsupported, ev.Type)
	}
}
