package manager

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/internal/testkit"
)

// The writer's series on a clock of its own, against the API server: a
// repeat joins the series, is written at once when it starts it and at the
// next flush after; a repeat after seriesWindow starts a new Event; a flush
// forgets the series that ended.
func TestEventSeriesWindowAndFlush(t *testing.T) {
	ns, cs := testkit.Namespace(t, "mgr-"), testkit.Clientset(t)
	s := newEventSender(cs.EventsV1(), newSpamFilter(25, 5*time.Minute), logr.Discard())
	defer s.cancel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	record := func(at time.Time) {
		s.record(&eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns}, EventTime: metav1.NewMicroTime(at),
			ReportingController: "tester", ReportingInstance: "tester-1", Action: "Sync", Reason: "Synced", Type: corev1.EventTypeNormal,
			Regarding: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: ns, Name: "cm"}, Note: "in sync"})
	}
	counts := func() (c []int32) {
		t.Helper()
		l, err := cs.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range l.Items {
			n := int32(1)
			if ev.Series != nil {
				n = ev.Series.Count
			}
			c = append(c, n)
		}
		return c
	}
	expect := func(when string, want ...int32) {
		t.Helper()
		got := counts()
		if len(got) != len(want) {
			t.Fatalf("%s: counts %v, want %v", when, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: counts %v, want %v", when, got, want)
			}
		}
	}
	record(t0)
	expect("first occurrence", 1)
	record(t0.Add(time.Second))
	expect("a series starts", 2)
	record(t0.Add(2 * time.Second))
	expect("a series grows: written at the next flush", 2)
	s.flush(t0.Add(time.Minute))
	expect("flushed", 3)
	if len(s.series) != 1 {
		t.Fatalf("%d series kept, want 1", len(s.series))
	}
	record(t0.Add(2*time.Second + seriesWindow))
	expect("after the window: a new Event", 3, 1)
	s.flush(t0.Add(2*time.Second + 2*seriesWindow))
	if len(s.series) != 0 || len(s.limit.buckets) != 0 {
		t.Fatalf("%d series and %d rate limits kept after they ended", len(s.series), len(s.limit.buckets))
	}
}
