package manager

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// The spam filter, on a clock of its own: a burst, then one event per
// interval, per object; buckets full again are forgotten.
func TestSpamFilterBurstThenOnePerInterval(t *testing.T) {
	f := newSpamFilter(3, time.Minute)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(name, rv string) spamKey {
		return spamKeyOf(&eventsv1.Event{ReportingController: "c", Type: corev1.EventTypeNormal,
			Regarding: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "ns", Name: name, ResourceVersion: rv}})
	}
	allowed := func(k spamKey, at time.Time, n int) (got int) {
		for range n {
			if f.allow(k, at) {
				got++
			}
		}
		return got
	}
	if got := allowed(ev("a", "1"), t0, 10); got != 3 {
		t.Fatalf("a burst of 10: %d allowed, want 3", got)
	}
	if got := allowed(ev("a", "2"), t0.Add(59*time.Second), 1); got != 0 {
		t.Fatal("allowed before an interval passed (or the resourceVersion made it another object)")
	}
	if got := allowed(ev("b", "1"), t0, 10); got != 3 {
		t.Fatalf("another object: %d allowed, want its own 3", got)
	}
	if got := allowed(ev("a", "3"), t0.Add(time.Minute), 2); got != 1 {
		t.Fatalf("after an interval: %d allowed, want 1", got)
	}
	f.forget(t0.Add(3 * time.Minute)) // b is full again, a (last taken at 1m) not yet
	if _, ok := f.buckets[ev("b", "")]; ok || len(f.buckets) != 1 {
		t.Fatalf("after forget: %d buckets, want only a's", len(f.buckets))
	}
	f.forget(t0.Add(4 * time.Minute))
	if len(f.buckets) != 0 {
		t.Fatalf("%d buckets full again but kept", len(f.buckets))
	}
}

func TestTruncateKeepsCharactersWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"hello", 10, "hello"}, {"hello", 3, "hel"}, {"héllo", 2, "h"}, {"héllo", 3, "hé"}} {
		if got := truncate(c.in, c.n); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
