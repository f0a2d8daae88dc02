package reflector

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// relist fetches a complete list into the store by paged LIST. It asks first
// for a list not older than the newest resourceVersion already seen (so the
// store never goes back in time, and the server may answer from its cache),
// and falls back to a consistent list when that version is gone or the
// server cannot reach it.
func (r *Reflector[T]) relist(ctx context.Context) error {
	r.mu.Lock()
	rv := r.relistRV
	first := !r.initialSync
	f := r.shard
	r.mu.Unlock()

	match := metav1.ResourceVersionMatchNotOlderThan
	switch {
	case rv == "" && first:
		rv, match = r.o.initialRV, "" // "" (consistent) unless the user chose "0"
	case rv == "":
		match = ""
	}
	items, listRV, err := r.listPages(ctx, rv, match, r.o.pageSize, f)
	if err != nil && rv != "" && (isExpired(err) || isTooLargeRV(err)) {
		r.log.Info("relist at the last seen resourceVersion failed; falling back to a consistent list",
			"resourceVersion", rv, "error", err.Error())
		items, listRV, err = r.listPages(ctx, "", "", r.o.pageSize, f)
	}
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	return r.replace(items, listRV, f)
}

// replace hands a complete list, of the shard f selects, to the store and
// records the progress. A shard selector changed meanwhile keeps a relist
// due.
func (r *Reflector[T]) replace(items []T, rv string, f *shardFilter) error {
	r.arrived()
	if err := r.store.Replace(items, rv); err != nil {
		// Replace applies what it can; report the rest without relisting.
		r.log.Error(err, "store rejected part of a list", "resourceVersion", rv)
	}
	r.seen(rv)
	r.mu.Lock()
	r.initialSync, r.needRelist, r.relistRV = true, r.shard != f, ""
	if r.needRelist {
		r.relistRV = r.lastRV
	}
	r.mu.Unlock()
	return nil
}

// listPages lists everything as of rv/match, page by page, in the shard f
// selects (nil: everything). When a continue token has expired (the
// version it pins was compacted away) it starts over with a single unpaged
// list, which the server answers in one consistent piece.
func (r *Reflector[T]) listPages(ctx context.Context, rv string, match metav1.ResourceVersionMatch, limit int64, f *shardFilter) ([]T, string, error) {
	opts := metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: match, Limit: limit, ShardSelector: f.String()}
	if rv == "0" {
		opts.Limit = 0 // served from the watch cache, which does not page
	}
	items := r.newListBuffer()
	for {
		list, err := r.lw.List(ctx, opts)
		if err != nil {
			if opts.Continue != "" && isExpired(err) {
				r.log.Info("list continue token expired; listing again in one piece")
				return r.listPages(ctx, rv, match, 0, f)
			}
			return nil, "", err
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return nil, "", fmt.Errorf("%T is not a list: %w", list, err)
		}
		objs, err := meta.ExtractList(list)
		if err != nil {
			return nil, "", fmt.Errorf("extracting items of %T: %w", list, err)
		}
		if items.first && items.items == nil {
			items.items = make([]T, 0, len(objs))
			r.noteShardInfo(f, list, lm)
		}
		for _, o := range objs {
			t, ok, err := r.typed(o, f)
			if err != nil {
				r.report(err)
			}
			if ok {
				items.items = append(items.items, t)
			}
		}
		if lm.GetContinue() == "" {
			return items.items, lm.GetResourceVersion(), nil
		}
		items.endPart() // a page's objects share one array: hand them over together
		// Later pages carry only the token (the server rejects a
		// resourceVersion or resourceVersionMatch beside it) and, as label
		// selectors do, the shard selector, which the token does not hold.
		opts = metav1.ListOptions{Continue: lm.GetContinue(), Limit: opts.Limit, ShardSelector: f.String()}
	}
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isTooLargeRV reports the error a server gives when asked for a
// resourceVersion its cache has not reached yet (it waited ~3s, then gave up).
func isTooLargeRV(err error) bool {
	if err == nil {
		return false
	}
	return apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) ||
		strings.Contains(err.Error(), "Too large resource version")
}
