package informer

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/internal/testkit"
)

func cmv(name, rv string) *corev1.ConfigMap {
	c := &corev1.ConfigMap{}
	c.Namespace, c.Name, c.ResourceVersion = "ns", name, rv
	return c
}

func describe(s slot[*corev1.ConfigMap]) string {
	var parts []string
	for _, n := range s.q[:s.n] {
		switch n.kind {
		case kindCreate:
			parts = append(parts, "create("+n.obj.ResourceVersion+")")
		case kindUpdate:
			parts = append(parts, "update("+n.old.ResourceVersion+"->"+n.obj.ResourceVersion+")")
		case kindDelete:
			parts = append(parts, "delete("+n.obj.ResourceVersion+")")
		}
	}
	return strings.Join(parts, " ")
}

func TestSlotMerge(t *testing.T) {
	create := func(rv string) notification[*corev1.ConfigMap] {
		return notification[*corev1.ConfigMap]{kind: kindCreate, obj: cmv("a", rv)}
	}
	upd := func(old, rv string) notification[*corev1.ConfigMap] {
		return notification[*corev1.ConfigMap]{kind: kindUpdate, old: cmv("a", old), obj: cmv("a", rv)}
	}
	del := func(rv string) notification[*corev1.ConfigMap] {
		return notification[*corev1.ConfigMap]{kind: kindDelete, obj: cmv("a", rv)}
	}
	for _, tc := range []struct {
		name   string
		events []notification[*corev1.ConfigMap]
		want   string
	}{
		{"create then updates is one create of the newest", []notification[*corev1.ConfigMap]{create("1"), upd("1", "2"), upd("2", "3")}, "create(3)"},
		{"updates keep the first old", []notification[*corev1.ConfigMap]{upd("1", "2"), upd("2", "3")}, "update(1->3)"},
		{"create then delete is nothing", []notification[*corev1.ConfigMap]{create("1"), del("1")}, ""},
		{"update then delete is the delete", []notification[*corev1.ConfigMap]{upd("1", "2"), del("2")}, "delete(2)"},
		{"delete then re-create keeps both", []notification[*corev1.ConfigMap]{del("1"), create("5"), upd("5", "6")}, "delete(1) create(6)"},
		{"re-created then deleted again", []notification[*corev1.ConfigMap]{del("1"), create("5"), del("5")}, "delete(1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s slot[*corev1.ConfigMap]
			for _, ev := range tc.events {
				s.merge(ev)
			}
			if got := describe(s); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// recorder is a Handler that records what it sees, optionally blocking.
type recorder struct {
	mu     sync.Mutex
	events []string
	gate   chan struct{} // if set, every call waits for a receive on it
}

func (r *recorder) record(s string) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}
func (r *recorder) OnCreate(e event.Create[*corev1.ConfigMap]) {
	r.record(fmt.Sprintf("create %s %s %v", e.Object.Name, e.Object.ResourceVersion, e.IsInInitialList))
}
func (r *recorder) OnUpdate(e event.Update[*corev1.ConfigMap]) {
	r.record(fmt.Sprintf("update %s %s->%s", e.ObjectNew.Name, e.ObjectOld.ResourceVersion, e.ObjectNew.ResourceVersion))
}
func (r *recorder) OnDelete(e event.Delete[*corev1.ConfigMap]) {
	r.record(fmt.Sprintf("delete %s unknown=%v", e.Key, e.DeleteStateUnknown))
}
func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestListenerBarrierAndPanic(t *testing.T) {
	var logged []string
	var logMu sync.Mutex
	log := funcr.New(func(prefix, args string) {
		logMu.Lock()
		logged = append(logged, args)
		logMu.Unlock()
	}, funcr.Options{})
	panicky := HandlerFuncs[*corev1.ConfigMap]{CreateFunc: func(e event.Create[*corev1.ConfigMap]) {
		if e.Object.Name == "boom" {
			panic("handler bug")
		}
	}}
	l := newListener[*corev1.ConfigMap](panicky, log)
	go l.run()
	l.enqueue("ns/boom", notification[*corev1.ConfigMap]{kind: kindCreate, obj: cmv("boom", "1"), initial: true})
	l.enqueue("ns/fine", notification[*corev1.ConfigMap]{kind: kindCreate, obj: cmv("fine", "1"), initial: true})
	l.markSynced()
	testkit.Eventually(t, 10*time.Second, "the listener's sync barrier after a panicking event", l.synced.Load)
	l.stop()
	<-l.done
	logMu.Lock()
	defer logMu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "ns/boom") || !strings.Contains(logged[0], "handler bug") {
		t.Fatalf("panic not logged with its key: %q", logged)
	}
}

// TestDeliverDoesNotAllocate guards the fan-out path: turning a notification
// into an event (a delete's key into a NamespacedName included) must not
// cost an allocation per event and handler.
func TestDeliverDoesNotAllocate(t *testing.T) {
	var seen int
	l := newListener[*corev1.ConfigMap](HandlerFuncs[*corev1.ConfigMap]{
		CreateFunc: func(event.Create[*corev1.ConfigMap]) { seen++ },
		UpdateFunc: func(event.Update[*corev1.ConfigMap]) { seen++ },
		DeleteFunc: func(e event.Delete[*corev1.ConfigMap]) {
			if e.Key.Namespace == "ns" && e.Key.Name == "a" {
				seen++
			}
		},
	}, logr.Discard())
	cm := cmv("a", "1")
	notes := []notification[*corev1.ConfigMap]{
		{kind: kindCreate, obj: cm},
		{kind: kindUpdate, old: cm, obj: cm},
		{kind: kindDelete, obj: cm, unknown: true},
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := range notes {
			l.deliver("ns/a", &notes[i])
		}
	})
	if allocs != 0 {
		t.Errorf("delivering a create, an update and a delete allocates %v times, want 0", allocs)
	}
	if seen != 3*101 {
		t.Errorf("handler saw %d events, want %d", seen, 3*101)
	}
}
