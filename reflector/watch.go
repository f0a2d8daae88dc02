package reflector

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

var (
	// errDeadWatch: nothing arrived, not even a bookmark, for too long.
	errDeadWatch = errors.New("watch delivered nothing for too long; restarting it")
	// errShortWatch: the watch closed at once without an event, as when the
	// server is going away; retrying at once would spin.
	errShortWatch = errors.New("watch closed immediately without events")
)

// shortWatch is how quickly a watch must end, with nothing delivered, to
// count as a failure rather than a normal timeout.
const shortWatch = time.Second

// watchOnce runs one watch request from the newest resourceVersion seen,
// until it ends. nil means it ended normally (its timeout) and another watch
// from where it stopped is due.
func (r *Reflector[T]) watchOnce(ctx context.Context) error {
	f := r.currentShard()
	opts := metav1.ListOptions{
		ResourceVersion:     r.LastSyncResourceVersion(),
		AllowWatchBookmarks: true,
		TimeoutSeconds:      r.watchTimeout(),
		ShardSelector:       f.String(),
	}
	w, err := r.lw.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer w.Stop()
	return r.consume(ctx, w, f)
}

// watchTimeout picks this request's timeout, in whole seconds, at random
// within the configured bounds.
func (r *Reflector[T]) watchTimeout() *int64 {
	d := r.o.minWatch
	if spread := r.o.maxWatch - r.o.minWatch; spread > 0 {
		d += rand.N(spread + 1)
	}
	secs := max(int64((d+time.Second-1)/time.Second), 1)
	return &secs
}

// consume applies a watch's events, of the shard f selects, to the store
// until it ends or SetShardSelector asks for a relist, which cancels the
// watch's own context rather than adding a channel to the select that
// every event goes through.
func (r *Reflector[T]) consume(ctx context.Context, w watch.Interface, f *shardFilter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.mu.Lock()
	if r.needRelist { // asked for before this watch began
		r.mu.Unlock()
		return nil
	}
	r.stopWatch = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.stopWatch = nil
		r.mu.Unlock()
	}()
	start := r.o.clock.Now()
	events := 0
	dead := r.o.clock.NewTimer(r.o.deadWatch)
	defer dead.Stop()
	for {
		ev, ok, woke := next(ctx, w.ResultChan(), dead.C())
		switch {
		case woke == cancelled:
			return nil
		case woke == timedOut:
			return errDeadWatch
		case !ok:
			if events == 0 && r.o.clock.Since(start) < shortWatch {
				return errShortWatch
			}
			return nil
		}
		events++
		dead.Reset(r.o.deadWatch)
		if err := r.apply(ev, f); err != nil {
			return err
		}
	}
}

// wake is why next returned.
type wake uint8

const (
	received  wake = iota // an event, or the end of the watch (ok false)
	cancelled             // ctx is done
	timedOut              // timeout fired first
)

// next waits for the next event of results, ctx or timeout. An event
// already waiting is taken without the select over all three: while a
// watch delivers faster than it is read (a streamed list), each event then
// costs two channel operations instead of a select. ctx is checked first,
// so a relist asked for (SetShardSelector) is not held up by a full
// channel.
func next(ctx context.Context, results <-chan watch.Event, timeout <-chan time.Time) (ev watch.Event, ok bool, woke wake) {
	select {
	case <-ctx.Done():
		return ev, false, cancelled
	default:
	}
	select {
	case ev, ok = <-results:
		return ev, ok, received
	default:
	}
	select {
	case <-ctx.Done():
		return ev, false, cancelled
	case <-timeout:
		return ev, false, timedOut
	case ev, ok = <-results:
		return ev, ok, received
	}
}

// apply hands one watch event to the store. An error event ends the watch
// with the server's error; a bad object is logged and skipped.
func (r *Reflector[T]) apply(ev watch.Event, f *shardFilter) error {
	switch ev.Type {
	case watch.Error:
		return apierrors.FromObject(ev.Object)
	case watch.Bookmark:
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			r.log.Error(err, "bookmark without metadata")
			return nil
		}
		r.arrived()
		r.seen(m.GetResourceVersion())
		r.store.Bookmark(m.GetResourceVersion())
		return nil
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		r.log.Info("ignoring watch event of unknown type", "type", ev.Type)
		return nil
	}
	obj, ok, err := r.typed(ev.Object, f)
	if err != nil {
		r.report(err)
		return nil
	}
	r.arrived()
	if !ok {
		// Outside the shard: for the store's objects, as good as a bookmark.
		r.seen(obj.GetResourceVersion())
		r.store.Bookmark(obj.GetResourceVersion())
		return nil
	}
	// Seen before the store has it: a relist another goroutine asks for
	// (SetShardSelector) once the store has this event starts from it.
	r.seen(obj.GetResourceVersion())
	switch ev.Type {
	case watch.Added:
		err = r.store.Add(obj)
	case watch.Modified:
		err = r.store.Update(obj)
	case watch.Deleted:
		err = r.store.Delete(obj)
	}
	if err != nil {
		r.report(err)
	}
	return nil
}

// report logs an error about one object and tells the error handler.
func (r *Reflector[T]) report(err error) {
	r.log.Error(err, "skipping object")
	if r.o.onError != nil {
		r.o.onError(err)
	}
}

// classify decides what the end of a watch means: nil to go on at once
// (possibly with a relist scheduled), an error to back off first.
func (r *Reflector[T]) classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errDeadWatch):
		r.log.Info(err.Error(), "resourceVersion", r.LastSyncResourceVersion())
		return nil
	case isExpired(err), isTooLargeRV(err):
		// The resourceVersion we would watch from is gone (410): relist,
		// asking for state not older than what we have.
		r.mu.Lock()
		r.needRelist = true
		if isExpired(err) {
			r.relistRV = r.lastRV
		}
		r.mu.Unlock()
		r.log.Info("watch resourceVersion no longer available; relisting", "error", err.Error())
		return nil
	default:
		return err
	}
}
