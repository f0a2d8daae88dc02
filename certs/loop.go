package certs

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
)

// Start reads the Secret, creating it if it does not exist, serves its
// certificate, injects its bundle and rotates, until ctx is done. It
// checks on every change of the Secret, which it watches, on a timer of
// a fiftieth of the validity (between a second and a minute), sooner while
// not Ready, and when a rotation rule comes due. Errors are logged and retried, not returned; Start
// returns nil when ctx is done, or an error if the Authority was started
// already.
func (a *Authority) Start(ctx context.Context) error {
	if !a.started.CompareAndSwap(false, true) {
		return fmt.Errorf("certs: Authority for Secret %s started twice", a.secret)
	}
	var w watch.Interface
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	a.check(ctx, nil)
	next := a.next()
	var rewatch time.Time // when to try watching again
	backoff := time.Second
	for {
		now := a.clock.Now()
		if w == nil && !now.Before(rewatch) {
			if w = a.watch(ctx); w == nil {
				rewatch, backoff = now.Add(backoff), min(2*backoff, 30*time.Second)
			} else {
				// A watch that ends at once is not re-established more
				// than once a second.
				rewatch, backoff = now.Add(time.Second), time.Second
			}
		}
		wake := next
		var events <-chan watch.Event
		if w != nil {
			events = w.ResultChan()
		} else if rewatch.Before(wake) {
			wake = rewatch
		}
		timer := a.clock.NewTimer(max(wake.Sub(now), 0))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case ev, ok := <-events:
			timer.Stop()
			if !ok || !a.event(ctx, ev) {
				w.Stop()
				w = nil
				continue
			}
		case <-timer.C():
			if a.clock.Now().Before(next) {
				continue // woken to watch again
			}
			a.check(ctx, nil)
		}
		next = a.next()
	}
}

// next returns when the timer-driven check is next due: after delay, or
// when a rotation rule comes due if that is sooner. It wakes a moment
// after the rule's time, since a rule holds from just past it.
func (a *Authority) next() time.Time {
	now := a.clock.Now()
	next := now.Add(a.delay())
	if a.last == nil {
		return next
	}
	if due := a.policy.due(now, a.last, a.injectedSince); !due.IsZero() && due.Before(next) {
		return due.Add(10 * time.Millisecond)
	}
	return next
}

// event handles a watch event; false means the watch must be replaced.
func (a *Authority) event(ctx context.Context, ev watch.Event) bool {
	switch ev.Type {
	case watch.Added, watch.Modified:
		s, ok := ev.Object.(*corev1.Secret)
		if !ok {
			return true
		}
		if a.lastRV != "" {
			// What was read or written since makes this event old news.
			if cmp, err := resourceversion.CompareResourceVersion(s.ResourceVersion, a.lastRV); err == nil && cmp <= 0 {
				return true
			}
		}
		a.check(ctx, s)
	case watch.Deleted:
		a.check(ctx, nil)
	case watch.Error:
		if apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) || apierrors.IsGone(apierrors.FromObject(ev.Object)) {
			a.lastRV = "" // start over from the current state
		}
		return false
	}
	return true
}

// watch watches the one Secret from the last version seen, or returns nil.
func (a *Authority) watch(ctx context.Context) watch.Interface {
	w, err := a.api.secrets.watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", a.secret.Name).String(),
		ResourceVersion: a.lastRV,
	})
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error(err, "Watching the Secret")
		}
		return nil
	}
	return w
}

// delay returns how long until the next timer-driven check: the policy's
// interval, or a backoff from half a second to five while not Ready, for
// targets created after the Authority started.
func (a *Authority) delay() time.Duration {
	if a.Ready() == nil {
		a.retry = 0
		return a.policy.interval
	}
	a.retry = clamp(2*a.retry, 500*time.Millisecond, min(a.policy.interval, 5*time.Second))
	return a.retry
}

// check brings this replica up to date with sec (read anew if nil):
// serves its certificate, injects its bundle and makes the change the
// rotation rules call for, repeating with the result of a write or, after
// a conflict, with the Secret read anew (a few times at most, so that
// writes that keep failing cannot spin).
func (a *Authority) check(ctx context.Context, sec *corev1.Secret) {
	for pass := 0; ; pass++ {
		if sec == nil {
			var err error
			if sec, err = a.readOrCreate(ctx); err != nil {
				a.setSecretErr(ctx, err)
				return
			}
		}
		a.setSecretErr(ctx, nil)
		a.lastRV = sec.ResourceVersion
		m := parseData(sec.Data, sec.Annotations)
		a.serve(m)
		a.injectAll(ctx, sec, m)
		now := a.clock.Now()
		d := a.policy.decide(now, m, a.injectedSince)
		if d.change == keep || pass == 3 {
			return
		}
		next, err := a.policy.apply(now, m, d)
		if err == nil {
			sec, err = a.write(ctx, sec, next)
		}
		switch {
		case apierrors.IsConflict(err):
			a.log.V(1).Info("Another replica changed the Secret first", "change", d.reason)
			sec = nil
			continue
		case err != nil:
			a.setSecretErr(ctx, err)
			return
		}
		switch d.change {
		case rotateCA:
			a.log.Info("CA rotated", "reason", d.reason, "ca", next.cas[0].Subject.CommonName, "notAfter", next.cas[0].NotAfter)
			if m.leaf() != next.leaf() {
				a.log.Info("serving certificate issued", "reason", "no serving certificate to keep", "notAfter", next.leaf().NotAfter)
			}
		case issue:
			a.log.Info("serving certificate issued", "reason", d.reason, "ca", next.cas[0].Subject.CommonName, "notAfter", next.leaf().NotAfter)
		case pruneCAs:
			a.log.Info("expired CA dropped", "reason", d.reason)
		}
	}
}

func (a *Authority) setSecretErr(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil && !sameError(err, a.secretErr) {
		a.log.Error(err, "Checking the Secret")
	}
	a.mu.Lock()
	a.secretErr = err
	a.mu.Unlock()
}
