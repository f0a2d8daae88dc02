package manager

import (
	"context"
	"encoding/json"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record/util"
	"k8s.io/client-go/tools/reference"

	"github.com/steadyctl/steady/internal/apiclient"
)

// The events.k8s.io/v1 pipeline. client-go's tools/events broadcaster is
// not used: it writes each event from a goroutine of its own, so shutdown
// cannot wait for the last ones, and it writes a series' count only when
// the series starts and then every 30 minutes, so the count at shutdown is
// lost. One goroutine writing in order does both.
const (
	eventQueueLen     = 1000             // events waiting to be written; more are dropped
	seriesWindow      = 6 * time.Minute  // a repeat this soon after the last occurrence joins its series
	seriesFlushEvery  = time.Minute      // how often the series that grew are written
	eventWriteTimeout = 10 * time.Second // per request
	eventWriteTries   = 5                // per request, while the server cannot be reached
	noteLimit         = 1024             // bytes: the API's limit on note
	instanceLimit     = 128              // bytes: the API's limit on reportingInstance
)

// v1Recorder is the recorder EventRecorderFor returns. It also has
// AnnotatedEventf, the method of client-go's events.AnnotatedEventRecorder
// (checked in a test: this file does not import client-go's package).
type v1Recorder struct {
	s                    *eventSender
	scheme               *runtime.Scheme
	controller, instance string
}

var _ EventRecorder = (*v1Recorder)(nil)

// Eventf records an Event of eventtype (corev1.EventTypeNormal or
// EventTypeWarning) about regarding, and optionally related; note is
// formatted with args when there are any.
func (r *v1Recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.AnnotatedEventf(regarding, related, nil, eventtype, reason, action, note, args...)
}

// AnnotatedEventf is Eventf with annotations on the Event.
func (r *v1Recorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	log := r.s.log.WithValues("controller", r.controller, "type", eventtype, "reason", reason, "action", action)
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		log.Error(nil, "event not recorded: its type must be Normal or Warning")
		return
	}
	if isNil(regarding) {
		log.Error(nil, "event not recorded: the object it is about is nil")
		return
	}
	ref, err := reference.GetReference(r.scheme, regarding)
	if err != nil {
		log.Error(err, "event not recorded: no reference to the object it is about")
		return
	}
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: ref.Namespace, Annotations: maps.Clone(annotations)},
		EventTime:           metav1.NewMicroTime(r.s.now()),
		ReportingController: r.controller,
		ReportingInstance:   r.instance,
		Action:              action,
		Reason:              reason,
		Regarding:           *ref,
		Note:                truncate(note, noteLimit),
		Type:                eventtype,
	}
	if ev.Namespace == "" { // a cluster-scoped object's
		ev.Namespace = metav1.NamespaceDefault
	}
	if !isNil(related) {
		if ev.Related, err = reference.GetReference(r.scheme, related); err != nil {
			log.V(1).Info("event recorded without its related object: no reference to it", "err", err)
		}
	}
	r.s.enqueue(ev, log)
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

// eventSender writes the events its recorders record, one at a time, in
// the order recorded: the first occurrence of an event creates an Event,
// and repeats count in its series.
type eventSender struct {
	api   *eventsV1API
	limit *spamFilter
	log   logr.Logger
	now   func() time.Time

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
	dirty bool      // count has grown since it was written
}

// seriesKey says which events are repeats of one another: all but the
// time and note. The objects' resourceVersions are left out: an object
// changes as it is reconciled, and is still the same object.
type seriesKey struct {
	typ, reason, action, controller, instance string
	regarding, related                        corev1.ObjectReference
}

func keyOf(ev *eventsv1.Event) seriesKey {
	k := seriesKey{typ: ev.Type, reason: ev.Reason, action: ev.Action,
		controller: ev.ReportingController, instance: ev.ReportingInstance, regarding: ev.Regarding}
	k.regarding.ResourceVersion = ""
	if ev.Related != nil {
		k.related = *ev.Related
		k.related.ResourceVersion = ""
	}
	return k
}

func newEventSender(api *eventsV1API, limit *spamFilter, log logr.Logger) *eventSender {
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
	se := s.series[k]
	if se != nil && at.Sub(se.last) < seriesWindow {
		se.count++
		se.last = at
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
		s.series[k] = &series{ev: ev, count: 1, last: at}
	}
}

// name names ev after its object and time, as client-go does, made unique
// within the process should two events have the same time.
func (s *eventSender) name(ev *eventsv1.Event) string {
	n := max(ev.EventTime.UnixNano(), s.lastName+1)
	s.lastName = n
	return util.GenerateEventName(ev.Regarding.Name, n)
}

// writeSeries writes se's count to its Event, or creates the Event again
// if it has gone (expired or deleted).
func (s *eventSender) writeSeries(se *series) {
	es := &eventsv1.EventSeries{Count: se.count, LastObservedTime: metav1.NewMicroTime(se.last)}
	patch, err := json.Marshal(map[string]any{"series": es})
	if err != nil { // cannot happen: plain fields
		s.log.Error(err, "event series not written")
		return
	}
	se.dirty = false // a failed write is not retried later: events are best effort
	s.write(se.ev, func(ctx context.Context) error {
		err := s.api.patch(ctx, se.ev.Namespace, se.ev.Name, patch)
		if apierrors.IsNotFound(err) {
			ev := se.ev.DeepCopy()
			ev.ResourceVersion, ev.Series = "", es
			err = s.api.create(ctx, ev)
		}
		return err
	})
}

// flush writes the series that grew. At a zero now (shutdown) that is
// all; otherwise it then forgets the series that ended and the rate
// limits that are full again.
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

// eventsV1API writes events.k8s.io/v1 Events, through a REST client of
// that group version alone (see package apiclient).
type eventsV1API struct {
	c *apiclient.Client
}

// newEventsV1API returns the events.k8s.io/v1 client of the API server at
// cfg, sending through hc (the cluster's HTTP client).
func newEventsV1API(cfg *rest.Config, hc *http.Client) (*eventsV1API, error) {
	c, err := apiclient.New(cfg, hc, eventsv1.SchemeGroupVersion, eventsv1.AddToScheme)
	if err != nil {
		return nil, err
	}
	return &eventsV1API{c: c}, nil
}

// create creates ev in its namespace.
func (a *eventsV1API) create(ctx context.Context, ev *eventsv1.Event) error {
	err := a.c.REST.Post().Namespace(ev.Namespace).Resource("events").
		VersionedParams(&metav1.CreateOptions{}, a.c.Params).
		Body(ev).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("creating Event %s/%s: %w", ev.Namespace, ev.Name, err)
	}
	return nil
}

// patch applies a JSON merge patch to Event ns/name.
func (a *eventsV1API) patch(ctx context.Context, ns, name string, patch []byte) error {
	err := a.c.REST.Patch(types.MergePatchType).Namespace(ns).Resource("events").Name(name).
		VersionedParams(&metav1.PatchOptions{}, a.c.Params).
		Body(patch).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("patching Event %s/%s: %w", ns, name, err)
	}
	return nil
}
