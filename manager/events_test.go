package manager_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// eventsTest is a manager restricted to a fresh namespace holding
// ConfigMaps cm-0 and cm-1, whose scheme has core/v1: the recorders name
// an object by the kind the scheme gives its type.
func eventsTest(t *testing.T, opts ...manager.Option) (m *manager.Manager, ns string, cms [2]*corev1.ConfigMap) {
	t.Helper()
	ns = testkit.Namespace(t, "mgr-")
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 2)
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	m, err := manager.New(testkit.Env(t).Config, append([]manager.Option{manager.WithNamespace(ns), manager.WithScheme(scheme)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"cm-0", "cm-1"} {
		if cms[i], err = testkit.Clientset(t).CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return m, ns, cms
}

// eventsV1 lists the namespace's events.k8s.io/v1 Events.
func eventsV1(t *testing.T, ns string) []eventsv1.Event {
	t.Helper()
	l, err := testkit.Clientset(t).EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func TestEventRecorderWritesEventsV1(t *testing.T) {
	m, ns, cms := eventsTest(t)
	if _, err := m.EventRecorderFor("not a name!"); err == nil || !strings.Contains(err.Error(), `EventRecorderFor("not a name!")`) {
		t.Fatalf("a name that is no qualified name: %v", err)
	}
	rec, err := m.EventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	rec.Eventf(cms[0], cms[1], corev1.EventTypeWarning, "Testing", "Test", "hello %s", "world")
	var ev eventsv1.Event
	testkit.Eventually(t, 20*time.Second, "the event stored", func() bool {
		evs := eventsV1(t, ns)
		if len(evs) == 1 {
			ev = evs[0]
		}
		return len(evs) == 1
	})
	reg, rel := ev.Regarding, ev.Related
	switch {
	case reg.Kind != "ConfigMap" || reg.Name != "cm-0" || reg.Namespace != ns || reg.UID != cms[0].UID:
		t.Errorf("regarding %+v, want cm-0", reg)
	case rel == nil || rel.Name != "cm-1" || rel.UID != cms[1].UID:
		t.Errorf("related %+v, want cm-1", rel)
	case ev.Type != corev1.EventTypeWarning || ev.Reason != "Testing" || ev.Action != "Test" || ev.Note != "hello world":
		t.Errorf("type %q, reason %q, action %q, note %q", ev.Type, ev.Reason, ev.Action, ev.Note)
	case ev.ReportingController != "tester" || !strings.HasPrefix(ev.ReportingInstance, "tester-"):
		t.Errorf("reporting controller %q, instance %q", ev.ReportingController, ev.ReportingInstance)
	case ev.EventTime.IsZero() || ev.Series != nil:
		t.Errorf("event time %v, series %+v", ev.EventTime, ev.Series)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.EventRecorderFor("tester"); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("EventRecorderFor after Start returned: %v", err)
	}
	rec.Eventf(cms[0], nil, corev1.EventTypeNormal, "Late", "Test", "after the manager stopped") // dropped, quietly
}

// The recorder serves code written against client-go's events.EventRecorder,
// and is its events.AnnotatedEventRecorder: the annotations are stored.
func TestEventRecorderIsClientGos(t *testing.T) {
	m, ns, cms := eventsTest(t)
	var rec events.EventRecorder // client-go's type, assigned the manager's
	rec, err := m.EventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	ann, ok := rec.(events.AnnotatedEventRecorder)
	if !ok {
		t.Fatalf("%T is no events.AnnotatedEventRecorder", rec)
	}
	stop := start(t, m)
	ann.AnnotatedEventf(cms[0], nil, map[string]string{"example.com/run": "7"}, corev1.EventTypeNormal, "Annotated", "Test", "with %d annotation", 1)
	if err := stop(); err != nil { // writes the event
		t.Fatal(err)
	}
	evs := eventsV1(t, ns)
	if len(evs) != 1 {
		t.Fatalf("%d Events, want 1", len(evs))
	}
	if ev := evs[0]; ev.Annotations["example.com/run"] != "7" || ev.Note != "with 1 annotation" || ev.Regarding.UID != cms[0].UID {
		t.Fatalf("annotations %v, note %q, regarding %+v", ev.Annotations, ev.Note, ev.Regarding)
	}
}

// Repeats of an event are one Event with a series, even as the object they
// are about changes between them, and the series' final count is written
// when the manager stops.
func TestEventRepeatsAreOneEventWithASeries(t *testing.T) {
	m, ns, cms := eventsTest(t)
	rec, err := m.EventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	for range 10 {
		rec.Eventf(cms[0], nil, corev1.EventTypeNormal, "Synced", "Sync", "in sync")
	}
	testkit.Eventually(t, 20*time.Second, "the series shown", func() bool {
		evs := eventsV1(t, ns)
		return len(evs) == 1 && evs[0].Series != nil
	})
	cm := cms[0].DeepCopy()
	cm.Labels = map[string]string{"changed": "yes"}
	cm, err = testkit.Clientset(t).CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		rec.Eventf(cm, nil, corev1.EventTypeNormal, "Synced", "Sync", "in sync, %s", "again")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	evs := eventsV1(t, ns)
	if len(evs) != 1 {
		t.Fatalf("%d Events, want one with a series", len(evs))
	}
	if s := evs[0].Series; s == nil || s.Count != 20 {
		t.Fatalf("series %+v, want count 20", s)
	}
}

// Beyond its burst, an object's new Events are dropped; repeats still
// count in their series, and other objects have budgets of their own.
func TestEventRateLimitDropsABurst(t *testing.T) {
	m, ns, cms := eventsTest(t, manager.WithEventRateLimit(3, time.Hour))
	rec, err := m.EventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	for _, reason := range []string{"A", "B", "C", "D", "E", "F", "G", "H"} {
		rec.Eventf(cms[0], nil, corev1.EventTypeNormal, reason, "Test", "burst")
	}
	for range 5 {
		rec.Eventf(cms[0], nil, corev1.EventTypeNormal, "A", "Test", "burst")
	}
	rec.Eventf(cms[1], nil, corev1.EventTypeNormal, "A", "Test", "another object")
	if err := stop(); err != nil { // writes the series' counts
		t.Fatal(err)
	}
	count := map[string]int32{}
	for _, ev := range eventsV1(t, ns) {
		n := int32(1)
		if ev.Series != nil {
			n = ev.Series.Count
		}
		count[ev.Regarding.Name+"/"+ev.Reason] = n
	}
	want := map[string]int32{"cm-0/A": 6, "cm-0/B": 1, "cm-0/C": 1, "cm-1/A": 1}
	if len(count) != len(want) {
		t.Fatalf("events %v, want %v", count, want)
	}
	for k, n := range want {
		if count[k] != n {
			t.Fatalf("events %v, want %v", count, want)
		}
	}
	if _, err := manager.New(testkit.Env(t).Config, manager.WithEventRateLimit(0, time.Minute)); err == nil ||
		!strings.Contains(err.Error(), "WithEventRateLimit(0, 1m0s)") {
		t.Fatalf("a zero burst: %v", err)
	}
}

func TestLegacyEventRecorderWritesCoreV1Events(t *testing.T) {
	m, ns, cms := eventsTest(t)
	if _, err := m.LegacyEventRecorderFor(""); err == nil || !strings.Contains(err.Error(), `LegacyEventRecorderFor("")`) {
		t.Fatalf("an empty name: %v", err)
	}
	rec, err := m.LegacyEventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	rec.Event(cms[0], corev1.EventTypeWarning, "Testing", "hello from the recorder")
	cs := testkit.Clientset(t)
	testkit.Eventually(t, 20*time.Second, "the event stored", func() bool {
		evs, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		return err == nil && len(evs.Items) == 1 && evs.Items[0].Reason == "Testing" && evs.Items[0].Message == "hello from the recorder" &&
			evs.Items[0].Source.Component == "tester" && evs.Items[0].InvolvedObject.UID == cms[0].UID
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// Repeats of a core/v1 event count in one Event: the broadcaster creates
// it, then patches its count.
func TestLegacyEventRepeatsCountInOneEvent(t *testing.T) {
	m, ns, cms := eventsTest(t)
	rec, err := m.LegacyEventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	for range 3 {
		rec.Eventf(cms[0], corev1.EventTypeNormal, "Synced", "in sync, %s", "again")
	}
	if err := stop(); err != nil { // writes the events
		t.Fatal(err)
	}
	evs, err := testkit.Clientset(t).CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) != 1 {
		t.Fatalf("%d Events, want one with count 3", len(evs.Items))
	}
	if ev := evs.Items[0]; ev.Count != 3 || ev.Message != "in sync, again" || ev.InvolvedObject.UID != cms[0].UID {
		t.Fatalf("count %d, message %q, object %+v", ev.Count, ev.Message, ev.InvolvedObject)
	}
}

// The events recorded by the reconciles still running at shutdown are
// written before Start returns, by both recorders.
func TestEventsOfTheLastReconcilesAreWritten(t *testing.T) {
	m, ns, cms := eventsTest(t)
	v1, err := m.EventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := m.LegacyEventRecorderFor("tester")
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	entered, release := make(chan struct{}), make(chan struct{})
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		cm := cms[0]
		if req.Name != cm.Name {
			return reconcile.Result{}, nil
		}
		once.Do(func() { close(entered) })
		<-release // shutdown has begun
		for range 3 {
			v1.Eventf(cm, nil, corev1.EventTypeNormal, "Stopping", "Reconcile", "the manager stops")
		}
		for i := range 5 { // written one at a time: the last ones wait for the first
			legacy.Eventf(cm, corev1.EventTypeNormal, fmt.Sprintf("Stopped%d", i), "the manager stopped")
		}
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	cancel, done := run(m)
	<-entered
	cancel()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	evs := eventsV1(t, ns) // no waiting: Start returned after writing them
	if len(evs) != 6 {
		var reasons []string
		for _, ev := range evs {
			reasons = append(reasons, ev.Reason)
		}
		t.Fatalf("events %v, want the v1 one and the 5 core/v1 ones", reasons)
	}
	for _, ev := range evs {
		switch {
		case ev.Reason == "Stopping":
			if ev.Series == nil || ev.Series.Count != 3 {
				t.Errorf("the v1 event's series is %+v, want count 3", ev.Series)
			}
		case strings.HasPrefix(ev.Reason, "Stopped"):
			if ev.DeprecatedSource.Component != "tester" {
				t.Errorf("the core/v1 event's source is %+v", ev.DeprecatedSource)
			}
		default:
			t.Errorf("unexpected event %+v", ev)
		}
	}
}
