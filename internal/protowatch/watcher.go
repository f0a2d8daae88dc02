package protowatch

import (
	"fmt"
	"io"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
)

// watchBuffer is how many decoded events a watch holds for its reader.
// apimachinery's StreamWatcher hands each event over unbuffered, so the
// decoding goroutine and the reader meet, and one of them parks and is
// woken, at every event: a third of a streamed list's scheduling. With a
// buffer the decoder runs ahead and the reader takes what is waiting. The
// reflector moves events on into its unbounded queue at once, so the
// buffer rarely holds more than a few.
const watchBuffer = 64

// watcher is a watch.Interface over a Decoder that ends, stops and reports
// a broken stream as apimachinery's StreamWatcher does, with a buffer.
type watcher struct {
	d      *Decoder
	result chan watch.Event
	done   chan struct{}
	stop   sync.Once
}

// reporter turns an event that does not decode into the ERROR event
// client-go's watches deliver for it.
var reporter = apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")

func newWatcher(d *Decoder) *watcher {
	w := &watcher{d: d, result: make(chan watch.Event, watchBuffer), done: make(chan struct{})}
	go w.receive()
	return w
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch: it closes the stream, which ends a Decode in
// progress. Events buffered already stay in the channel, which is closed
// once the decoding goroutine has returned.
func (w *watcher) Stop() {
	w.stop.Do(func() {
		close(w.done)
		w.d.Close()
	})
}

func (w *watcher) receive() {
	defer close(w.result)
	defer w.Stop()
	for {
		typ, obj, err := w.d.Decode()
		switch {
		case err == nil:
			if !w.send(watch.Event{Type: typ, Object: obj}) {
				return
			}
			continue
		case err == io.EOF, err == io.ErrUnexpectedEOF, utilnet.IsProbableEOF(err), utilnet.IsTimeout(err):
			// The stream ended, cleanly or not: the reader watches again.
		default:
			w.send(watch.Event{Type: watch.Error,
				Object: reporter.AsObject(fmt.Errorf("unable to decode an event from the watch stream: %v", err))})
		}
		return
	}
}

// send hands ev to the reader, unless the watch is stopped. While there is
// room in the buffer it takes no select.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case <-w.done:
		return false
	default:
	}
	select {
	case w.result <- ev:
		return true
	default:
	}
	select {
	case <-w.done:
		return false
	case w.result <- ev:
		return true
	}
}
