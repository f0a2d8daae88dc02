package manager

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/reference"

	"github.com/steadyctl/steady/internal/apiclient"
)

// The API's limits on an events.k8s.io/v1 Event's fields.
const (
	noteLimit     = 1024 // bytes of note
	instanceLimit = 128  // bytes of reportingInstance
)

// v1Recorder is the recorder EventRecorderFor returns. It also has
// AnnotatedEventf, the method of client-go's events.AnnotatedEventRecorder
// (checked in a test: this file does not import client-go's package).
type v1Recorder struct {
	s                    *eventSender
	scheme               *runtime.Scheme
	controller, instance string
}

var (
	_ EventRecorder = (*v1Recorder)(nil)
	_ eventsAPI     = (*eventsV1API)(nil)
)

// Eventf records an Event of eventtype (corev1.EventTypeNormal or
// EventTypeWarning) about regarding, and optionally related; note is
// formatted with args when there are any.
func (r *v1Recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.AnnotatedEventf(regarding, related, nil, eventtype, reason, action, note, args...)
}

// AnnotatedEventf is Eventf with annotations on the Event.
func (r *v1Recorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	log := r.s.log.WithValues("controller", r.controller, "type", eventtype, "reason", reason, "action", action)
	ev := r.s.event(log, r.scheme, regarding, annotations, eventtype, note, args)
	if ev == nil {
		return
	}
	ev.ReportingController, ev.ReportingInstance = r.controller, r.instance
	ev.Action, ev.Reason = action, reason
	ev.Note = truncate(ev.Note, noteLimit)
	if !isNil(related) {
		var err error
		if ev.Related, err = reference.GetReference(r.scheme, related); err != nil {
			log.V(1).Info("event recorded without its related object: no reference to it", "err", err)
		}
	}
	r.s.enqueue(ev, log)
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
	return postEvent(ctx, a.c, ev.Namespace, ev.Name, ev)
}

// count patches ev's series, or creates ev again with it.
func (a *eventsV1API) count(ctx context.Context, ev *eventsv1.Event, n int32, last time.Time, _ string) error {
	es := &eventsv1.EventSeries{Count: n, LastObservedTime: metav1.NewMicroTime(last)}
	err := patchEvent(ctx, a.c, ev.Namespace, ev.Name, map[string]any{"series": es})
	if apierrors.IsNotFound(err) {
		again := ev.DeepCopy()
		again.ResourceVersion, again.Series = "", es
		return a.create(ctx, again)
	}
	return err
}

// postEvent creates ev, an Event of c's group version, as ns/name.
func postEvent(ctx context.Context, c *apiclient.Client, ns, name string, ev runtime.Object) error {
	err := c.REST.Post().Namespace(ns).Resource("events").
		VersionedParams(&metav1.CreateOptions{}, c.Params).
		Body(ev).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("creating Event %s/%s: %w", ns, name, err)
	}
	return nil
}

// patchEvent applies fields, as a JSON merge patch, to Event ns/name of
// c's group version. An error wraps the server's: callers look for
// NotFound.
func patchEvent(ctx context.Context, c *apiclient.Client, ns, name string, fields map[string]any) error {
	patch, err := json.Marshal(fields)
	if err != nil { // cannot happen: plain fields
		return err
	}
	err = c.REST.Patch(types.MergePatchType).Namespace(ns).Resource("events").Name(name).
		VersionedParams(&metav1.PatchOptions{}, c.Params).
		Body(patch).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("patching Event %s/%s: %w", ns, name, err)
	}
	return nil
}
