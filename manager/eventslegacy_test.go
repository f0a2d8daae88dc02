package manager

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/steadyctl/steady/internal/testkit"
)

// LegacyEventRecorder and client-go's record.EventRecorder are assignable
// to each other: code that keeps a record.EventRecorder, as code written
// for controller-runtime's GetEventRecorderFor does, keeps compiling.
var (
	_ record.EventRecorder = LegacyEventRecorder(nil)
	_ LegacyEventRecorder  = record.EventRecorder(nil)
)

// coreV1APIFor is the core/v1 events client of the test environment's
// API server.
func coreV1APIFor(t *testing.T) *coreV1API {
	t.Helper()
	cfg := testkit.Env(t).Config
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	api, err := newCoreV1API(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// legacySender is a core/v1 writer, not started: the test calls record and
// flush itself, on a clock of its own.
func legacySender(t *testing.T) *eventSender {
	s := newEventSender(coreV1APIFor(t), newSpamFilter(25, 5*time.Minute), logr.Discard())
	s.similar = &similarEvents{kinds: map[seriesKey]*similar{}}
	t.Cleanup(s.cancel)
	return s
}

// legacyEvent is the event the legacy recorder makes, at at.
func legacyEvent(ns, message string, at time.Time) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns}, EventTime: metav1.NewMicroTime(at),
		ReportingController: "tester", DeprecatedSource: corev1.EventSource{Component: "tester"},
		Reason: "Synced", Type: corev1.EventTypeNormal, Note: message,
		Regarding: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: ns, Name: "cm", UID: "u-1"},
	}
}

// coreEvents lists the namespace's core/v1 Events, oldest first.
func coreEvents(t *testing.T, ns string) []corev1.Event {
	t.Helper()
	l, err := testkit.Clientset(t).CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(l.Items, func(a, b corev1.Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	return l.Items
}

// The core/v1 writer against the API server: a first occurrence creates
// a core/v1 Event with client-go's fields (source, count 1, first and last
// times, no eventTime); repeats of the same message count in it, written
// when the count reaches 2 and at the next flush after; another message
// is another Event; a count whose Event has gone creates it again.
func TestLegacyEventsCountRepeatsOfOneMessage(t *testing.T) {
	ns, s := testkit.Namespace(t, "mgr-"), legacySender(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s.record(legacyEvent(ns, "in sync", t0))
	evs := coreEvents(t, ns)
	if len(evs) != 1 {
		t.Fatalf("%d Events after the first occurrence, want 1", len(evs))
	}
	ev := evs[0]
	if ev.Count != 1 || ev.Source.Component != "tester" || ev.Message != "in sync" || ev.Reason != "Synced" ||
		!ev.FirstTimestamp.Time.Equal(t0) || !ev.LastTimestamp.Time.Equal(t0) || !ev.EventTime.IsZero() ||
		ev.InvolvedObject.UID != "u-1" || ev.ReportingController != "tester" {
		t.Fatalf("first occurrence stored as %+v", ev)
	}
	s.record(legacyEvent(ns, "in sync", t0.Add(time.Second)))
	s.record(legacyEvent(ns, "in sync", t0.Add(2*time.Second)))
	if evs := coreEvents(t, ns); len(evs) != 1 || evs[0].Count != 2 || !evs[0].LastTimestamp.Time.Equal(t0.Add(time.Second)) {
		t.Fatalf("after two repeats, before a flush: %+v, want one Event of count 2", evs)
	}
	s.record(legacyEvent(ns, "out of sync", t0.Add(3*time.Second)))
	s.flush(t0.Add(time.Minute))
	evs = coreEvents(t, ns)
	if len(evs) != 2 || evs[0].Count != 3 || !evs[0].LastTimestamp.Time.Equal(t0.Add(2*time.Second)) ||
		evs[1].Count != 1 || evs[1].Message != "out of sync" {
		t.Fatalf("after a flush: %+v, want counts 3 and 1", evs)
	}

	if err := testkit.Clientset(t).CoreV1().Events(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	s.record(legacyEvent(ns, "in sync", t0.Add(4*time.Second)))
	s.flush(t0.Add(2 * time.Minute))
	evs = coreEvents(t, ns)
	if len(evs) != 1 || evs[0].Count != 4 || evs[0].Message != "in sync" || !evs[0].FirstTimestamp.Time.Equal(t0) {
		t.Fatalf("a count whose Event was deleted: %+v, want it created again with count 4", evs)
	}
}

// Ten messages of one kind of event, each within ten minutes of the one
// before, and the tenth and later ones are counted in one Event whose
// message says they are combined and shows the latest; a kind quiet for
// ten minutes starts again.
func TestLegacyEventsCombineSimilarOnes(t *testing.T) {
	ns, s := testkit.Namespace(t, "mgr-"), legacySender(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := t0
	for i := range similarLimit + 2 {
		at = t0.Add(time.Duration(i) * time.Second)
		s.record(legacyEvent(ns, fmt.Sprintf("attempt %d failed", i), at))
	}
	s.flush(t0.Add(time.Minute))
	evs := coreEvents(t, ns)
	if len(evs) != similarLimit {
		t.Fatalf("%d Events, want %d: nine apart, then one combined", len(evs), similarLimit)
	}
	combined := evs[len(evs)-1]
	if combined.Count != 3 || combined.Message != combinedPrefix+"attempt 11 failed" {
		t.Fatalf("the combined Event: count %d, message %q", combined.Count, combined.Message)
	}
	for _, ev := range evs[:len(evs)-1] {
		if ev.Count != 1 {
			t.Fatalf("Event %q has count %d, want 1", ev.Message, ev.Count)
		}
	}

	later := at.Add(similarWindow)
	s.flush(later) // forgets the kind and the series
	if len(s.similar.kinds) != 0 || len(s.series) != 0 {
		t.Fatalf("after the window: %d kinds, %d series kept", len(s.similar.kinds), len(s.series))
	}
	s.record(legacyEvent(ns, "attempt 12 failed", later))
	if evs := coreEvents(t, ns); evs[len(evs)-1].Message != "attempt 12 failed" {
		t.Fatalf("after a quiet window, the message is %q, want it apart again", evs[len(evs)-1].Message)
	}
}
