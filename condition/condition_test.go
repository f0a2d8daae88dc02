package condition_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/condition"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var ready = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available", Message: "all replicas up"}

func TestSet(t *testing.T) {
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", Generation: 3}}
	changed, err := condition.Set(w, &w.Status.Conditions, ready)
	if err != nil || !changed {
		t.Fatalf("first Set: %v, %v; want a change", changed, err)
	}
	got := meta.FindStatusCondition(w.Status.Conditions, "Ready")
	if got.ObservedGeneration != 3 || got.LastTransitionTime.IsZero() || got.Reason != "Available" {
		t.Fatalf("condition %+v: want observedGeneration 3 and a transition time", got)
	}
	first := got.LastTransitionTime
	if changed, err := condition.Set(w, &w.Status.Conditions, ready); changed || err != nil {
		t.Fatalf("the same condition again: %v, %v; want no change", changed, err)
	}
	w.Generation = 4 // a new spec: the same condition, observed anew
	if changed, _ := condition.Set(w, &w.Status.Conditions, ready); !changed || w.Status.Conditions[0].ObservedGeneration != 4 || w.Status.Conditions[0].LastTransitionTime != first {
		t.Fatalf("after a generation bump: %v, %+v; want observedGeneration 4 and the transition time kept", changed, w.Status.Conditions[0])
	}

	for what, tc := range map[string]struct {
		c    metav1.Condition
		want string
	}{
		"no type":    {metav1.Condition{Status: metav1.ConditionTrue, Reason: "R"}, "condition.type: Required"},
		"bad status": {metav1.Condition{Type: "Ready", Status: "Yes", Reason: "R"}, `condition.status: Unsupported value: "Yes"`},
		"no reason":  {metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue}, "condition.reason: Required"},
		"bad reason": {metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "not camel case"}, "condition.reason: Invalid value"},
	} {
		before := w.DeepCopy()
		changed, err := condition.Set(w, &w.Status.Conditions, tc.c)
		if changed || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "ns/w") {
			t.Errorf("%s: %v, %v; want an error naming ns/w and containing %q", what, changed, err, tc.want)
		}
		if len(w.Status.Conditions) != len(before.Status.Conditions) || w.Status.Conditions[0] != before.Status.Conditions[0] {
			t.Errorf("%s: a refused condition changed the conditions: %+v", what, w.Status.Conditions)
		}
	}
	var pod corev1.Pod
	if _, err := condition.Set(&pod, nil, ready); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("Set into nil conditions: %v", err)
	}
}

// writeCounter counts the requests that write widgets.
type writeCounter struct {
	next   http.RoundTripper
	writes atomic.Int32
}

func (c *writeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/widgets/") {
		c.writes.Add(1)
	}
	return c.next.RoundTrip(req)
}

// With ModifyStatus, a condition that is set already costs no request;
// one whose generation or status changed costs one.
func TestModifyStatusWritesOnlyChangedConditions(t *testing.T) {
	env := testkit.Env(t)
	testkit.InstallCRD(t, widgetGV.WithKind("Widget"))
	ns := testkit.Namespace(t, "condition-")
	counter := &writeCounter{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	cl, err := cluster.New(cfg, cluster.WithScheme(testkit.Scheme(t, widgetGV, &Widget{}, &WidgetList{})))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(cl, informer.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	widgets, err := client.For[*Widget](f, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Start(ctx) }()
	defer func() { cancel(); <-done }()

	if _, err := widgets.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "w"}, Spec: WidgetSpec{Size: 1}}); err != nil {
		t.Fatal(err)
	}
	setReady := func(status metav1.ConditionStatus) func(*Widget) error {
		return func(w *Widget) error {
			c := ready
			c.Status = status
			_, err := condition.Set(w, &w.Status.Conditions, c)
			return err
		}
	}
	// step modifies with mutate, waits until the cache holds the result (so
	// that the next step starts from it), and checks the writes made.
	step := func(what string, mutate func(*Widget) error, status bool, wantWrites int32) *Widget {
		t.Helper()
		counter.writes.Store(0)
		modify := widgets.Modify
		if status {
			modify = widgets.ModifyStatus
		}
		got, err := modify(ctx, ns, "w", mutate)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := counter.writes.Load(); n != wantWrites {
			t.Fatalf("%s: %d writes, want %d", what, n, wantWrites)
		}
		testkit.Eventually(t, 20*time.Second, "the cache to catch up with "+what, func() bool {
			c, err := widgets.Get(ctx, ns, "w")
			return err == nil && c.ResourceVersion == got.ResourceVersion
		})
		return got
	}
	w := step("the first Ready", setReady(metav1.ConditionTrue), true, 1)
	if c := meta.FindStatusCondition(w.Status.Conditions, "Ready"); c == nil || c.ObservedGeneration != w.Generation {
		t.Fatalf("stored conditions %+v, want Ready observed at generation %d", w.Status.Conditions, w.Generation)
	}
	step("the same Ready again", setReady(metav1.ConditionTrue), true, 0)
	step("a spec change", func(w *Widget) error { w.Spec.Size = 2; return nil }, false, 1)
	w = step("Ready for the new generation", setReady(metav1.ConditionTrue), true, 1)
	if c := meta.FindStatusCondition(w.Status.Conditions, "Ready"); c.ObservedGeneration != 2 {
		t.Fatalf("Ready observed at generation %d, want 2", c.ObservedGeneration)
	}
	step("Ready again at generation 2", setReady(metav1.ConditionTrue), true, 0)
	step("Ready turning False", setReady(metav1.ConditionFalse), true, 1)
}
