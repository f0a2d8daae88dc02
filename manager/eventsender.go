package manager

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/reference"
)

// The writer behind both recorders. client-go's broadcasters are not
// used: tools/events writes each event from a goroutine of its own, so
// shutdown cannot wait for the last ones, and writes a series' count only
// when the series starts and then every 30 minutes, so the count at
// shutdown is lost; tools/record links strategic merge patch and the
// OpenAPI models, megabytes of binary and memory, for the patch of a
// count. One goroutine per API, writing in order, does both jobs.
const (
	eventQueueLen     = 1000             // events waiting to be written; more are dropped
	seriesWindow      = 6 * time.Minute  // a repeat this soon after the last occurrence joins its series
	seriesFlushEvery  = time.Minute      // how often the series that grew are written
	eventWriteTimeout = 10 * time.Second // per request
	eventWriteTries   = 5                // per request, while the server cannot be reached
)

// eventsAPI writes one API group's Events. Both pipelines carry
// events.k8s.io/v1 Events, the newer shape of the same stored object; the
// core/v1 API converts them as it writes.
type eventsAPI interface {
	// create creates ev in its namespace.
	create(ctx context.Context, ev *eventsv1.Event) error
	// count writes that the Event ev, as created, has occurred n times, the
	// last at last with note, creating it again if it has gone (expired or
	// deleted).
	count(ctx context.Context, ev *eventsv1.Event, n int32, last time.Time, note string) error
}

// eventSender writes the events its recorders record, one at a time, in
// the order recorded: the first occurrence of an event creates an Event,
// and repeats count in it.
type eventSender struct {
	api     eventsAPI
	limit   *spamFilter
	similar *similarEvents // core/v1 only: repeats must have the same note, and many notes combine
	log     logr.Logger
	now     func() time.Time

	mu     sync.RWMutex // read-held to enqueue, held to close the queue
	closed bool
	queue  chan *eventsv1.Event

	ctx    context.Context // of the writes: cancelled when stop runs out of time
	cancel context.CancelFunc
	done   chan struct{}

	// Owned by run.
	series   map[seriesKey]*series
	lastName int64
}

// series is a written Event and the count of its occurrences.
type series struct {
	ev    *eventsv1.Event // as created: namespace and name
	count int32
	last  time.Time // of the last occurrence
	note  string    // of the last occurrence
	dirty bool      // count has grown since it was written
}

// seriesKey says which events are repeats of one another: all but the
// time and, for events.k8s.io/v1, the note. The objects' resourceVersions
// are left out: an object changes as it is reconciled, and is still the
// same object.
type seriesKey struct {
	typ, reason, action, controller, instance, source, note string
	regarding, related                                      corev1.ObjectReference
}

func keyOf(ev *eventsv1.Event) seriesKey {
	k := seriesKey{typ: ev.Type, reason: ev.Reason, action: ev.Action, controller: ev.ReportingController,
		instance: ev.ReportingInstance, source: ev.DeprecatedSource.Component, regarding: ev.Regarding}
	k.regarding.ResourceVersion = ""
	if ev.Related != nil {
		k.related = *ev.Related
		k.related.ResourceVersion = ""
	}
	return k
}

func newEventSender(api eventsAPI, limit *spamFilter, log logr.Logger) *eventSender {
	ctx, cancel := context.WithCancel(context.Background())
	return &eventSender{api: api, limit: limit, log: log, now: time.Now,
		queue: make(chan *eventsv1.Event, eventQueueLen), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), series: map[seriesKey]*series{}}
}

// start runs the writer, flushing the series that grew every flushEvery.
func (s *eventSender) start(flushEvery time.Duration) {
	tick := time.NewTicker(flushEvery)
	go func() {
		defer close(s.done)
		defer tick.Stop()
		for {
			select {
			case ev, ok := <-s.queue:
				if !ok {
					s.flush(time.Time{})
					return
				}
				s.record(ev)
			case <-tick.C:
				s.flush(s.now())
			}
		}
	}()
}

// enqueue hands ev to the writer without waiting.
func (s *eventSender) enqueue(ev *eventsv1.Event, log logr.Logger) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		log.V(1).Info("event dropped: the manager has stopped")
		return
	}
	select {
	case s.queue <- ev:
		log.V(1).Info("event", "object", objectOf(ev.Regarding), "kind", ev.Regarding.Kind, "note", ev.Note)
	default:
		log.Error(nil, "event dropped: too many waiting to be written", "waiting", cap(s.queue))
	}
}

// stop writes what was recorded before it, for at most timeout, and stops
// the writer.
func (s *eventSender) stop(timeout time.Duration) {
	s.mu.Lock()
	s.closed = true
	close(s.queue)
	s.mu.Unlock()
	defer s.cancel()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
		s.log.Error(nil, "events not all written at shutdown: the rest are dropped", "timeout", timeout)
		s.cancel()
		<-s.done
	}
}

// record writes ev, or counts it in the series it repeats.
func (s *eventSender) record(ev *eventsv1.Event) {
	at, k := ev.EventTime.Time, keyOf(ev)
	if s.similar != nil {
		k.note = s.similar.combine(ev, k, at)
	}
	se := s.series[k]
	if se != nil && at.Sub(se.last) < seriesWindow {
		se.count++
		se.last, se.note = at, ev.Note
		se.dirty = true
		if se.count == 2 { // shown as a series at once; later counts wait for a flush
			s.writeSeries(se)
		}
		return
	}
	if se != nil && se.dirty { // an ended series that grew since the last flush
		s.writeSeries(se)
	}
	if !s.limit.allow(spamKeyOf(ev), at) {
		s.log.V(1).Info("event dropped: over the rate limit for its object", "controller", ev.ReportingController,
			"object", objectOf(ev.Regarding), "kind", ev.Regarding.Kind, "type", ev.Type, "reason", ev.Reason)
		return
	}
	ev.Name = s.name(ev)
	if s.write(ev, func(ctx context.Context) error { return s.api.create(ctx, ev) }) {
		s.series[k] = &series{ev: ev, count: 1, last: at, note: ev.Note}
	}
}

// event returns a new Event of eventtype about regarding, at the time
// now, with annotations and note formatted with args when there are any;
// nil, logged, if it cannot be recorded.
func (s *eventSender) event(log logr.Logger, scheme *runtime.Scheme, regarding runtime.Object, annotations map[string]string, eventtype, note string, args []any) *eventsv1.Event {
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		log.Error(nil, "event not recorded: its type must be Normal or Warning")
		return nil
	}
	if isNil(regarding) {
		log.Error(nil, "event not recorded: the object it is about is nil")
		return nil
	}
	ref, err := reference.GetReference(scheme, regarding)
	if err != nil {
		log.Error(err, "event not recorded: no reference to the object it is about")
		return nil
	}
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	ev := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Annotations: maps.Clone(annotations)},
		EventTime:  metav1.NewMicroTime(s.now()),
		Regarding:  *ref,
		Note:       note,
		Type:       eventtype,
	}
	if ev.Namespace == "" { // a cluster-scoped object's
		ev.Namespace = metav1.NamespaceDefault
	}
	return ev
}

// name names ev after its object and time, in hexadecimal nanoseconds as
// client-go's recorders do, made unique within the process should two
// events have the same time.
func (s *eventSender) name(ev *eventsv1.Event) string {
	n := max(ev.EventTime.UnixNano(), s.lastName+1)
	s.lastName = n
	return fmt.Sprintf("%s.%x", ev.Regarding.Name, n)
}

// writeSeries writes se's count to its Event.
func (s *eventSender) writeSeries(se *series) {
	se.dirty = false // a failed write is not retried later: events are best effort
	s.write(se.ev, func(ctx context.Context) error { return s.api.count(ctx, se.ev, se.count, se.last, se.note) })
}

// flush writes the series that grew. At a zero now (shutdown) that is
// all; otherwise it then forgets the series that ended, the rate limits
// that are full again and the similar events of the past.
func (s *eventSender) flush(now time.Time) {
	for k, se := range s.series {
		if se.dirty {
			s.writeSeries(se)
		}
		if !now.IsZero() && now.Sub(se.last) >= seriesWindow {
			delete(s.series, k)
		}
	}
	if !now.IsZero() {
		s.limit.forget(now)
		if s.similar != nil {
			s.similar.forget(now)
		}
	}
}

// write runs req, again while the server cannot be reached or is
// overloaded, and reports whether it succeeded.
func (s *eventSender) write(ev *eventsv1.Event, req func(context.Context) error) bool {
	backoff := time.Second
	for try := 1; ; try++ {
		if s.ctx.Err() != nil { // stop ran out of time
			return false
		}
		ctx, cancel := context.WithTimeout(s.ctx, eventWriteTimeout)
		err := req(ctx)
		cancel()
		if err == nil {
			return true
		}
		if !retriable(err) || try == eventWriteTries {
			log := s.log.WithValues("namespace", ev.Namespace, "name", ev.Name, "reason", ev.Reason)
			if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				log.V(1).Info("event not written: its namespace is being deleted")
			} else {
				log.Error(err, "event not written")
			}
			return false
		}
		t := time.NewTimer(backoff)
		select {
		case <-s.ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		backoff *= 2
	}
}

// retriable says whether a failed write may succeed later: the server was
// not reached, or was overloaded or failing.
func retriable(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return true
	}
	code := st.Status().Code
	return code == http.StatusTooManyRequests || code >= http.StatusInternalServerError
}

// objectOf is ref's "namespace/name", for logs.
func objectOf(ref corev1.ObjectReference) string {
	if ref.Namespace == "" {
		return ref.Name
	}
	return ref.Namespace + "/" + ref.Name
}

// isNil says whether obj is nil, or a nil pointer in an interface.
func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
