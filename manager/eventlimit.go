package manager

import (
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// spamFilter bounds the Events written about one object: a token bucket
// per reporting controller, object and type holding burst tokens and
// gaining one every interval, as client-go's core/v1 recorder has (its
// EventSourceObjectSpamFilter) and its events.k8s.io/v1 one lacks. Used by
// the writer's goroutine only.
type spamFilter struct {
	burst   int
	every   rate.Limit
	buckets map[spamKey]*rate.Limiter
}

type spamKey struct {
	controller, typ string
	object          corev1.ObjectReference // without resourceVersion and fieldPath
}

func spamKeyOf(ev *eventsv1.Event) spamKey {
	k := spamKey{controller: ev.ReportingController, typ: ev.Type, object: ev.Regarding}
	k.object.ResourceVersion, k.object.FieldPath = "", ""
	return k
}

func newSpamFilter(burst int, interval time.Duration) *spamFilter {
	return &spamFilter{burst: burst, every: rate.Every(interval), buckets: map[spamKey]*rate.Limiter{}}
}

// allow takes a token from k's bucket at now, if it has one.
func (f *spamFilter) allow(k spamKey, now time.Time) bool {
	b := f.buckets[k]
	if b == nil {
		b = rate.NewLimiter(f.every, f.burst)
		f.buckets[k] = b
	}
	return b.AllowN(now, 1)
}

// forget drops the buckets that are full again at now: a new bucket is
// the same, so only the objects with recent events take memory.
func (f *spamFilter) forget(now time.Time) {
	for k, b := range f.buckets {
		if b.TokensAt(now) >= float64(f.burst) {
			delete(f.buckets, k)
		}
	}
}
