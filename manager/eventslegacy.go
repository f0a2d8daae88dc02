package manager

import (
	"context"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/apiclient"
)

// The core/v1 pipeline: the writer of both recorders (see eventSender),
// keyed as client-go's record package keys repeats, and writing through a
// REST client of core/v1 alone.

// Similar events, client-go's name for events that differ only in their
// message, are combined into one Event once this many messages have been
// seen, each within similarWindow of the one before.
const (
	similarLimit   = 10
	similarWindow  = 10 * time.Minute
	combinedPrefix = "(combined from similar events): "
)

// legacyRecorder is the recorder LegacyEventRecorderFor returns.
type legacyRecorder struct {
	s         *eventSender
	scheme    *runtime.Scheme
	component string
}

var (
	_ LegacyEventRecorder = (*legacyRecorder)(nil)
	_ eventsAPI           = (*coreV1API)(nil)
)

// Event records an Event of eventtype (corev1.EventTypeNormal or
// EventTypeWarning) about object.
func (r *legacyRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.AnnotatedEventf(object, nil, eventtype, reason, message)
}

// Eventf is Event with a message formatted from messageFmt and args.
func (r *legacyRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.AnnotatedEventf(object, nil, eventtype, reason, messageFmt, args...)
}

// AnnotatedEventf is Eventf with annotations on the Event.
func (r *legacyRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	log := r.s.log.WithValues("component", r.component, "type", eventtype, "reason", reason)
	ev := r.s.event(log, r.scheme, object, annotations, eventtype, messageFmt, args)
	if ev == nil {
		return
	}
	ev.Reason = reason
	ev.DeprecatedSource.Component = r.component
	ev.ReportingController = r.component // as client-go's recorder sets it
	r.s.enqueue(ev, log)
}

// similarEvents counts, per kind of event (a seriesKey without note), the
// notes seen recently, so that an event can be combined with the similar
// ones once there are many. Used by the writer's goroutine only.
type similarEvents struct {
	kinds map[seriesKey]*similar
}

type similar struct {
	notes map[string]bool // at most similarLimit
	last  time.Time
}

// combine notes ev's note among those of its kind k (its seriesKey, note
// left empty) and returns the note its series is keyed by: its own, or,
// once its kind has had similarLimit notes, one shared by all of them;
// then ev's note is prefixed to say so.
func (c *similarEvents) combine(ev *eventsv1.Event, k seriesKey, at time.Time) string {
	s := c.kinds[k]
	if s == nil || at.Sub(s.last) >= similarWindow {
		s = &similar{notes: map[string]bool{}}
		c.kinds[k] = s
	}
	s.last = at
	if len(s.notes) < similarLimit {
		s.notes[ev.Note] = true
	}
	if len(s.notes) < similarLimit {
		return ev.Note
	}
	ev.Note = combinedPrefix + ev.Note
	return combinedPrefix
}

// forget drops the kinds with no event within similarWindow of now.
func (c *similarEvents) forget(now time.Time) {
	for k, s := range c.kinds {
		if now.Sub(s.last) >= similarWindow {
			delete(c.kinds, k)
		}
	}
}

// coreV1API writes core/v1 Events, converted from the events.k8s.io/v1
// shape the writer carries, through a REST client of core/v1 alone (see
// package apiclient).
type coreV1API struct {
	c *apiclient.Client
}

// newCoreV1API returns the core/v1 client of the API server at cfg,
// sending through hc (the cluster's HTTP client).
func newCoreV1API(cfg *rest.Config, hc *http.Client) (*coreV1API, error) {
	c, err := apiclient.New(cfg, hc, corev1.SchemeGroupVersion, corev1.AddToScheme)
	if err != nil {
		return nil, err
	}
	return &coreV1API{c: c}, nil
}

// coreEvent is ev as a core/v1 Event, its first occurrence. Its eventTime
// stays empty, as client-go's recorder leaves it: the API server checks
// an Event that has one as an events.k8s.io/v1 Event, with an action and
// a reporting instance.
func coreEvent(ev *eventsv1.Event) *corev1.Event {
	at := metav1.NewTime(ev.EventTime.Time)
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: ev.Namespace, Name: ev.Name, Annotations: ev.Annotations},
		InvolvedObject:      ev.Regarding,
		Reason:              ev.Reason,
		Message:             ev.Note,
		Source:              ev.DeprecatedSource,
		FirstTimestamp:      at,
		LastTimestamp:       at,
		Count:               1,
		Type:                ev.Type,
		ReportingController: ev.ReportingController,
	}
}

// create creates ev as a core/v1 Event.
func (a *coreV1API) create(ctx context.Context, ev *eventsv1.Event) error {
	return postEvent(ctx, a.c, ev.Namespace, ev.Name, coreEvent(ev))
}

// count patches the Event's count, last time and message, as client-go's
// recorder does for a repeat, or creates it again with them.
func (a *coreV1API) count(ctx context.Context, ev *eventsv1.Event, n int32, last time.Time, note string) error {
	lastTime := metav1.NewTime(last)
	err := patchEvent(ctx, a.c, ev.Namespace, ev.Name, map[string]any{"count": n, "lastTimestamp": lastTime, "message": note})
	if apierrors.IsNotFound(err) {
		again := coreEvent(ev)
		again.Count, again.LastTimestamp, again.Message = n, lastTime, note
		return postEvent(ctx, a.c, ev.Namespace, ev.Name, again)
	}
	return err
}
