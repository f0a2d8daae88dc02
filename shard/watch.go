package shard

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watchLeases keeps the view of the ring's Leases current until ctx ends:
// a list, then a watch from its resourceVersion, listing again when the
// watch cannot resume. Events arrive in resourceVersion order, so the view
// is always the ring as it stood at some resourceVersion.
func (r *Ring) watchLeases(ctx context.Context) {
	sel := metav1.ListOptions{LabelSelector: RingLabel + "=" + r.name}
	for ctx.Err() == nil {
		list, err := r.api.List(ctx, sel)
		if err != nil {
			r.o.log.Error(err, "listing the ring's Leases")
			r.sleep(ctx)
			continue
		}
		r.replace(list.Items)
		rv := list.ResourceVersion
		for ctx.Err() == nil {
			opts := sel
			opts.ResourceVersion, opts.AllowWatchBookmarks = rv, true
			w, err := r.api.Watch(ctx, opts)
			if err != nil {
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					break
				}
				r.o.log.Error(err, "watching the ring's Leases")
				r.sleep(ctx)
				continue
			}
			var relist bool
			rv, relist = r.consume(w, rv)
			w.Stop()
			if relist {
				break
			}
		}
	}
}

// consume applies a watch's events until it ends, returning the
// resourceVersion to resume from (from, when none came), or relist when
// it cannot resume.
func (r *Ring) consume(w watch.Interface, from string) (rv string, relist bool) {
	rv = from
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			err := apierrors.FromObject(ev.Object)
			r.o.log.V(1).Info("watch of the ring's Leases ended", "reason", err.Error())
			return rv, true
		}
		l, ok := ev.Object.(*coordinationv1.Lease)
		if !ok {
			r.o.log.Error(fmt.Errorf("shard: watch sent %T", ev.Object), "watching the ring's Leases")
			return rv, true
		}
		rv = l.ResourceVersion
		r.mu.Lock()
		now := r.o.clock.Now()
		switch ev.Type {
		case watch.Added, watch.Modified:
			r.setLeaseLocked(l, now)
		case watch.Deleted:
			if id, _, ok := r.parseLease(l); ok && r.leases[id] != nil && r.leases[id].uid == l.UID {
				delete(r.leases, id)
			}
		}
		if ev.Type != watch.Bookmark {
			r.recomputeLocked(now)
		}
		r.mu.Unlock()
	}
	return rv, false
}

// replace makes the listed Leases the view.
func (r *Ring) replace(items []coordinationv1.Lease) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.o.clock.Now()
	old := r.leases
	r.leases = make(map[string]*memberLease, len(items))
	for i := range items {
		if id, _, ok := r.parseLease(&items[i]); ok && old[id] != nil {
			r.leases[id] = old[id] // keeps when it was last seen renewed
		}
		r.setLeaseLocked(&items[i], now)
	}
	r.recomputeLocked(now)
}

// sleep waits a retry period or until ctx ends.
func (r *Ring) sleep(ctx context.Context) {
	t := r.o.clock.NewTimer(r.o.retryPeriod)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}
