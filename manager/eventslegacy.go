package manager

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/steadyctl/steady/internal/apiclient"
)

// legacyEvents is the core/v1 pipeline: client-go's record broadcaster,
// with its aggregation and spam filter, writing through a flushSink.
type legacyEvents struct {
	b    record.EventBroadcaster
	sink *flushSink
	log  logr.Logger

	mu      sync.RWMutex // read-held to record, held to stop
	stopped bool
}

// flushSink writes core/v1 Events, except the marker event that stop
// records last: that one it takes as the sign that everything recorded
// before has been written.
type flushSink struct {
	record.EventSink
	marker  types.UID
	once    sync.Once
	flushed chan struct{}
}

func (s *flushSink) Create(ev *corev1.Event) (*corev1.Event, error) {
	if ev.InvolvedObject.UID == s.marker {
		s.once.Do(func() { close(s.flushed) })
		return ev, nil
	}
	return s.EventSink.Create(ev)
}

func newLegacyEvents(api record.EventSink, burst int, interval time.Duration, log logr.Logger) *legacyEvents {
	b := record.NewBroadcaster(
		record.WithCorrelatorOptions(record.CorrelatorOptions{BurstSize: burst, QPS: float32(1 / interval.Seconds())}),
		record.WithContext(logr.NewContext(context.Background(), log)))
	sink := &flushSink{EventSink: api, marker: uuid.NewUUID(), flushed: make(chan struct{})}
	b.StartRecordingToSink(sink)
	b.StartEventWatcher(func(e *corev1.Event) {
		if e.InvolvedObject.UID != sink.marker {
			log.V(1).Info("event", "component", e.Source.Component, "object", objectOf(e.InvolvedObject),
				"kind", e.InvolvedObject.Kind, "type", e.Type, "reason", e.Reason, "message", e.Message)
		}
	})
	return &legacyEvents{b: b, sink: sink, log: log}
}

func (l *legacyEvents) recorder(scheme *runtime.Scheme, component string) record.EventRecorder {
	return &legacyRecorder{l: l, r: l.b.NewRecorder(scheme, corev1.EventSource{Component: component})}
}

// stop writes what was recorded before it, for at most timeout, and stops
// the broadcaster. The broadcaster writes one event at a time, in order,
// so once a marker recorded last reaches the sink, every event before it
// has been written or given up on.
func (l *legacyEvents) stop(scheme *runtime.Scheme, timeout time.Duration) {
	l.mu.Lock()
	l.stopped = true // from here on no recorder sends: the marker is last
	l.mu.Unlock()
	marker := &corev1.ObjectReference{Kind: "Marker", Namespace: metav1.NamespaceDefault, Name: "steady-flush", UID: l.sink.marker}
	l.b.NewRecorder(scheme, corev1.EventSource{Component: "steady"}).Event(marker, corev1.EventTypeNormal, "Flush", "flush")
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-l.sink.flushed:
	case <-t.C:
		l.log.Error(nil, "core/v1 events not all written at shutdown: the rest are dropped", "timeout", timeout)
	}
	l.b.Shutdown()
}

// legacyRecorder drops the events recorded once the manager has stopped,
// which the broadcaster would log as errors, and those about a nil
// pointer, which would panic.
type legacyRecorder struct {
	l *legacyEvents
	r record.EventRecorder
}

// open read-locks l while it still takes events, and reports whether it
// does and obj is not nil; the caller unlocks if so.
func (r *legacyRecorder) open(obj runtime.Object, reason string) bool {
	if isNil(obj) {
		r.l.log.Error(nil, "event not recorded: the object it is about is nil", "reason", reason)
		return false
	}
	r.l.mu.RLock()
	if r.l.stopped {
		r.l.mu.RUnlock()
		return false
	}
	return true
}

// Event records an Event of eventtype (corev1.EventTypeNormal or
// EventTypeWarning) about object.
func (r *legacyRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	if r.open(object, reason) {
		defer r.l.mu.RUnlock()
		r.r.Event(object, eventtype, reason, message)
	}
}

// Eventf is Event with a message formatted from messageFmt and args.
func (r *legacyRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	if r.open(object, reason) {
		defer r.l.mu.RUnlock()
		r.r.Eventf(object, eventtype, reason, messageFmt, args...)
	}
}

// AnnotatedEventf is Eventf with annotations on the Event.
func (r *legacyRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	if r.open(object, reason) {
		defer r.l.mu.RUnlock()
		r.r.AnnotatedEventf(object, annotations, eventtype, reason, messageFmt, args...)
	}
}

// coreV1Sink is the record.EventSink of the core/v1 pipeline: it writes
// each Event in its own namespace, through a REST client of core/v1 alone
// (see package apiclient).
//
// Its errors are the REST client's, unwrapped: the broadcaster tells the
// failures to give up on from those to retry, and a missing Event (which
// it creates again) from others, by their concrete types.
type coreV1Sink struct {
	c *apiclient.Client
}

// newCoreV1Sink returns the sink of the API server at cfg, sending through
// hc (the cluster's HTTP client).
func newCoreV1Sink(cfg *rest.Config, hc *http.Client) (*coreV1Sink, error) {
	c, err := apiclient.New(cfg, hc, corev1.SchemeGroupVersion, corev1.AddToScheme)
	if err != nil {
		return nil, err
	}
	return &coreV1Sink{c: c}, nil
}

// Create creates ev.
func (s *coreV1Sink) Create(ev *corev1.Event) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.c.REST.Post().NamespaceIfScoped(ev.Namespace, ev.Namespace != "").Resource("events").
		Body(ev).Do(context.Background()).Into(out)
	return out, err
}

// Update replaces ev, whose resourceVersion must be the stored Event's.
func (s *coreV1Sink) Update(ev *corev1.Event) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.c.REST.Put().NamespaceIfScoped(ev.Namespace, ev.Namespace != "").Resource("events").Name(ev.Name).
		Body(ev).Do(context.Background()).Into(out)
	return out, err
}

// Patch applies data, a strategic merge patch (the broadcaster's, of the
// count, message and last time of a repeated event), to the Event ev
// names.
func (s *coreV1Sink) Patch(ev *corev1.Event, data []byte) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.c.REST.Patch(types.StrategicMergePatchType).NamespaceIfScoped(ev.Namespace, ev.Namespace != "").
		Resource("events").Name(ev.Name).
		Body(data).Do(context.Background()).Into(out)
	return out, err
}
