package manager

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"

	"github.com/steadyctl/steady/internal/testkit"
)

// The recorder EventRecorderFor returns is client-go's events.EventRecorder
// and AnnotatedEventRecorder, and EventRecorder and client-go's
// interface are assignable to each other: code written against client-go's
// type keeps compiling.
var (
	_ events.EventRecorder          = (*v1Recorder)(nil)
	_ events.AnnotatedEventRecorder = (*v1Recorder)(nil)
	_ events.EventRecorder          = EventRecorder(nil)
	_ EventRecorder                 = events.EventRecorder(nil)
)

// The writer's series on a clock of its own, against the API server: a
// repeat joins the series, is written at once when it starts it and at the
// next flush after; a repeat after seriesWindow starts a new Event; a flush
// forgets the series that ended.
func TestEventSeriesWindowAndFlush(t *testing.T) {
	ns, cs := testkit.Namespace(t, "mgr-"), testkit.Clientset(t)
	s := newEventSender(eventsV1APIFor(t), newSpamFilter(25, 5*time.Minute), logr.Discard())
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

// eventsV1APIFor is the writer's events.k8s.io/v1 client of the test
// environment's API server.
func eventsV1APIFor(t *testing.T) *eventsV1API {
	t.Helper()
	cfg := testkit.Env(t).Config
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	api, err := newEventsV1API(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// A series whose Event has gone (expired or deleted) creates it again,
// with the series' count, when it is next written.
func TestEventSeriesOfAGoneEventIsCreatedAgain(t *testing.T) {
	ns, cs := testkit.Namespace(t, "mgr-"), testkit.Clientset(t)
	s := newEventSender(eventsV1APIFor(t), newSpamFilter(25, 5*time.Minute), logr.Discard())
	defer s.cancel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		s.record(&eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns}, EventTime: metav1.NewMicroTime(t0.Add(time.Duration(i) * time.Second)),
			ReportingController: "tester", ReportingInstance: "tester-1", Action: "Sync", Reason: "Synced", Type: corev1.EventTypeNormal,
			Regarding: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: ns, Name: "cm"}, Note: "in sync"})
		if i == 1 { // the series is written: now it goes
			if err := cs.EventsV1().Events(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.flush(t0.Add(time.Minute))
	l, err := cs.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Series == nil || l.Items[0].Series.Count != 3 || l.Items[0].Reason != "Synced" {
		t.Fatalf("%d Events (%+v), want one created again with series count 3", len(l.Items), l.Items)
	}
}
