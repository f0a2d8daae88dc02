package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// listPage is the page size of the parent's convergence LISTs: one page up
// to 10,000 objects, and at 100,000 the API server need not build a
// response of them all at once.
const listPage = 10000

// unconverged lists the objects, from the API server's watch cache and in
// pages where it serves them so, and returns the names of those a
// controller of run has not converged yet, and the list's resourceVersion.
func (c *cluster) unconverged(ctx context.Context, run string) (map[string]bool, string, error) {
	pending := make(map[string]bool)
	listed, rv := 0, ""
	opts := metav1.ListOptions{ResourceVersion: "0", Limit: c.page}
	for {
		list := c.kind.NewList()
		err := c.objects.Get().Namespace(c.namespace).Resource(c.kind.Resource()).
			VersionedParams(&opts, c.params).Do(ctx).Into(list)
		if err != nil {
			return nil, "", err
		}
		err = meta.EachListItem(list, func(obj runtime.Object) error {
			listed++
			if m := obj.(metav1.Object); !e2e.Converged(run, m) {
				pending[m.GetName()] = true
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return nil, "", err
		}
		rv = lm.GetResourceVersion()
		if opts.Continue = lm.GetContinue(); opts.Continue == "" {
			break
		}
		opts.ResourceVersion = "" // the continue token carries it
	}
	if listed != len(c.names) {
		return nil, "", fmt.Errorf("listed %d %s, want %d", listed, c.kind.Plural(), len(c.names))
	}
	return pending, rv, nil
}

// waitConverged returns once every object is converged for run, with how
// long that took. It lists the objects once, then follows their changes
// with a watch from the list's resourceVersion, and lists again only if
// the watch ends: re-listing every object to poll would, at 100,000 custom
// resources, cost the API server and the parent more than the controllers
// under test spend.
func (c *cluster) waitConverged(ctx context.Context, run string, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errConvergeTimeout)
	defer cancel()
	left := len(c.names)
	for {
		pending, rv, err := c.unconverged(ctx, run)
		if err == nil {
			if left = len(pending); left > 0 {
				left, err = c.follow(ctx, run, rv, pending)
			}
			if err == nil && left == 0 {
				return time.Since(start), nil
			}
		}
		switch {
		case context.Cause(ctx) == errConvergeTimeout:
			return 0, fmt.Errorf("%d of %d %s not converged after %v", left, len(c.names), c.kind.Plural(), timeout)
		case ctx.Err() != nil:
			return 0, ctx.Err()
		case err != nil:
			return 0, err
		}
		// The watch ended (a server timeout, 410 Gone): list again.
	}
}

// errConvergeTimeout ends waitConverged's context when its time is up.
var errConvergeTimeout = errors.New("convergence timeout")

// follow watches the objects from rv, keeping pending (the unconverged
// names) up to date, until none is left, the watch ends or ctx is done. It
// returns how many are left.
func (c *cluster) follow(ctx context.Context, run, rv string, pending map[string]bool) (int, error) {
	opts := metav1.ListOptions{Watch: true, ResourceVersion: rv, AllowWatchBookmarks: true}
	w, err := c.objects.Get().Namespace(c.namespace).Resource(c.kind.Resource()).
		VersionedParams(&opts, c.params).Watch(ctx)
	if err != nil {
		return len(pending), err
	}
	defer w.Stop()
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return len(pending), nil
			}
			m, ok := ev.Object.(metav1.Object)
			switch {
			case !ok || ev.Type == watch.Bookmark:
			case ev.Type == watch.Deleted || e2e.Converged(run, m):
				delete(pending, m.GetName())
			default:
				pending[m.GetName()] = true
			}
			if len(pending) == 0 {
				return 0, nil
			}
		case <-progress.C:
			logf("  %d of %d %s to converge", len(pending), len(c.names), c.kind.Plural())
		case <-ctx.Done():
			return len(pending), ctx.Err()
		}
	}
}
