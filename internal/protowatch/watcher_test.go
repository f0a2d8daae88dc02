package protowatch_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// A watch decodes ahead of its reader, in order, and a reader that stops
// without draining it ends its goroutine and closes the stream (TestMain
// checks that no goroutine is left), however many events were waiting.
func TestWatchBuffersAheadAndStops(t *testing.T) {
	var evs []watch.Event
	for i := range 500 {
		evs = append(evs, watch.Event{Type: watch.Added, Object: configMap(fmt.Sprint("cm-", i), fmt.Sprint(10+i))})
	}
	stream := encodeStream(t, evs)

	got := drain(configMapKind(true).Watch(body(stream)))
	if len(got) != len(evs) {
		t.Fatalf("%d events, want %d", len(got), len(evs))
	}
	for i, ev := range got {
		if name := ev.Object.(*corev1.ConfigMap).Name; name != fmt.Sprint("cm-", i) {
			t.Fatalf("event %d is %s", i, name)
		}
	}

	// Stopped before anything is read: its goroutine ends on its own.
	idle := &closer{r: body(stream)}
	configMapKind(true).Watch(idle).Stop()
	if !idle.closed.Load() {
		t.Fatal("Stop did not close the stream")
	}

	c := &closer{r: body(stream)}
	w := configMapKind(true).Watch(c)
	<-w.ResultChan()
	w.Stop()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if ok {
				continue // buffered before Stop
			}
			if !c.closed.Load() {
				t.Fatal("the stream is not closed")
			}
			return
		case <-deadline:
			t.Fatal("the watch did not end after Stop")
		}
	}
}
