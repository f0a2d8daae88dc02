package informer

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"

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
		case kindAdd:
			parts = append(parts, "add("+n.obj.ResourceVersion+")")
		case kindUpdate:
			parts = append(parts, "update("+n.old.ResourceVersion+"->"+n.obj.ResourceVersion+")")
		case kindDelete:
			parts = append(parts, "delete("+n.obj.ResourceVersion+")")
		}
	}
	return strings.Join(parts, " ")
}

func TestSlotMerge(t *testing.T) {
	add := func(rv string) notification[*corev1.ConfigMap] {
		return notification[*corev1.ConfigMap]{kind: kindAdd, obj: cmv("a", rv)}
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
		{"add then updates is one add of the newest", []notification[*corev1.ConfigMap]{add("1"), upd("1", "2"), upd("2", "3")}, "add(3)"},
		{"updates keep the first old", []notification[*corev1.ConfigMap]{upd("1", "2"), upd("2", "3")}, "update(1->3)"},
		{"add then delete is nothing", []notification[*corev1.ConfigMap]{add("1"), del("1")}, ""},
		{"update then delete is the delete", []notification[*corev1.ConfigMap]{upd("1", "2"), del("2")}, "delete(2)"},
		{"delete then re-create keeps both", []notification[*corev1.ConfigMap]{del("1"), add("5"), upd("5", "6")}, "delete(1) add(6)"},
		{"re-created then deleted again", []notification[*corev1.ConfigMap]{del("1"), add("5"), del("5")}, "delete(1)"},
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
func (r *recorder) OnAdd(o *corev1.ConfigMap, initial bool) {
	r.record(fmt.Sprintf("add %s %s %v", o.Name, o.ResourceVersion, initial))
}
func (r *recorder) OnUpdate(old, o *corev1.ConfigMap) {
	r.record(fmt.Sprintf("update %s %s->%s", o.Name, old.ResourceVersion, o.ResourceVersion))
}
func (r *recorder) OnDelete(d Deleted[*corev1.ConfigMap]) {
	r.record(fmt.Sprintf("delete %s unknown=%v", d.Key, d.FinalStateUnknown))
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
	panicky := HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(o *corev1.ConfigMap, _ bool) {
		if o.Name == "boom" {
			panic("handler bug")
		}
	}}
	l := newListener[*corev1.ConfigMap](panicky, log)
	go l.run()
	l.enqueue("ns/boom", notification[*corev1.ConfigMap]{kind: kindAdd, obj: cmv("boom", "1"), initial: true})
	l.enqueue("ns/fine", notification[*corev1.ConfigMap]{kind: kindAdd, obj: cmv("fine", "1"), initial: true})
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
