package manager

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// EventRecorder records events.k8s.io/v1 Events about objects; see
// Manager.EventRecorderFor. Its method set is that of client-go's
// events.EventRecorder, so a value of either type is assignable to the
// other and code written against client-go's keeps compiling. It is
// declared here because client-go's package events imports every typed
// client, which operators that do not use it should not have to link.
type EventRecorder interface {
	// Eventf records an Event of eventtype (corev1.EventTypeNormal or
	// EventTypeWarning) about regarding, and optionally related: the
	// reporting controller did action, for reason (UpperCamelCase, a
	// word programs can switch on). The note, for people, is formatted
	// with args when there are any.
	Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// LegacyEventRecorder records core/v1 Events about objects; see
// Manager.LegacyEventRecorderFor. Its method set is that of client-go's
// record.EventRecorder (controller-runtime's GetEventRecorderFor returns
// one), so a value of either type is assignable to the other.
type LegacyEventRecorder interface {
	// Event records an Event of eventtype (corev1.EventTypeNormal or
	// EventTypeWarning) about object: reason is UpperCamelCase, a word
	// programs can switch on; message is for people.
	Event(object runtime.Object, eventtype, reason, message string)
	// Eventf is Event with a message formatted from messageFmt and args
	// when there are any.
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any)
	// AnnotatedEventf is Eventf with annotations on the Event.
	AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any)
}

// eventPipes are the manager's two event pipelines, each made when its
// first recorder is asked for and stopped by stopEvents.
type eventPipes struct {
	v1      *eventSender
	legacy  *eventSender
	stopped bool
}

// EventRecorderFor returns a recorder of events.k8s.io/v1 Events (what
// `kubectl events` and `kubectl describe` show) whose reporting controller
// is name, usually the controller's, which must be a qualified name
// ("foo-controller", "example.com/foo"). Its Events name this process as
// their reporting instance: name, "-" and the host name.
//
// Events are written in the background, in the order recorded, so Eventf
// never waits for the API server. The first occurrence of an event
// creates an Event; a repeat within six minutes of the last occurrence —
// same object, related object, type, reason and action, whatever its
// note — is counted in that Event's series instead (`kubectl events`
// shows "x5"): the series is written when it starts, at most once a
// minute while it grows, and when the manager stops. New Events about one object are rate limited (see
// WithEventRateLimit). At most 1,000 events wait to be written; more are
// dropped, as client-go's recorders drop them.
//
// The recorder also has AnnotatedEventf, the method of client-go's
// events.AnnotatedEventRecorder, which records an Event with annotations:
// a type assertion to that interface, or to one of your own with the
// method, reaches it. Recorders share one writer, started by the first,
// flushed and stopped when Start returns, after the controllers: events
// recorded during their last reconciles are written. Clusters without
// events.k8s.io/v1 (before Kubernetes 1.19) need LegacyEventRecorderFor.
func (m *Manager) EventRecorderFor(name string) (EventRecorder, error) {
	if errs := validation.IsQualifiedName(name); len(errs) > 0 {
		return nil, fmt.Errorf("manager: EventRecorderFor(%q): the reporting controller must be a qualified name: %s", name, strings.Join(errs, "; "))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.eventPipe("EventRecorderFor", name, m.events.v1 != nil, func() error {
		api, err := newEventsV1API(m.cluster.Config(), m.cluster.HTTPClient())
		if err != nil {
			return err
		}
		m.events.v1 = newEventSender(api, newSpamFilter(m.opts.eventBurst, m.opts.eventEvery), m.log.WithName("events"))
		m.events.v1.start(seriesFlushEvery)
		return nil
	})
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	instance := name + "-" + host
	if len(instance) > instanceLimit {
		instance = instance[:instanceLimit]
	}
	return &v1Recorder{s: m.events.v1, scheme: m.cluster.Scheme(), controller: name, instance: instance}, nil
}

// LegacyEventRecorderFor returns a recorder of core/v1 Events reported by
// component name, for clusters or tools that read only those; its
// methods are those of the recorder controller-runtime's
// GetEventRecorderFor returns.
//
// It keeps client-go's record package's rules for core/v1 Events: a
// repeat of an event (same object, type, reason and message) increases
// the count of its Event; once one kind of event (the same but for the
// message) has had ten messages, each within ten minutes of the one
// before, they are combined into one Event whose message says "(combined
// from similar events)"; and new Events about one object are rate limited
// (see WithEventRateLimit). It writes them as EventRecorderFor's do, in
// the background and in order: a repeat's count is written when the
// count becomes 2, then at most once a minute and when the manager stops,
// where client-go patches it on every repeat; and a repeat more than six
// minutes after the one before starts a new Event. Like
// EventRecorderFor's, its Events are flushed when Start returns, after the
// controllers.
func (m *Manager) LegacyEventRecorderFor(name string) (LegacyEventRecorder, error) {
	if name == "" {
		return nil, fmt.Errorf("manager: LegacyEventRecorderFor(%q): a component needs a name", name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.eventPipe("LegacyEventRecorderFor", name, m.events.legacy != nil, func() error {
		api, err := newCoreV1API(m.cluster.Config(), m.cluster.HTTPClient())
		if err != nil {
			return err
		}
		m.events.legacy = newEventSender(api, newSpamFilter(m.opts.eventBurst, m.opts.eventEvery), m.log.WithName("events"))
		m.events.legacy.similar = &similarEvents{kinds: map[seriesKey]*similar{}}
		m.events.legacy.start(seriesFlushEvery)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &legacyRecorder{s: m.events.legacy, scheme: m.cluster.Scheme(), component: name}, nil
}

// eventPipe makes a pipeline, with m.mu held, unless it exists; after the
// manager has stopped it is an error of method (name).
func (m *Manager) eventPipe(method, name string, exists bool, make func() error) error {
	if m.events.stopped {
		return fmt.Errorf("manager: %s(%q): the manager has stopped", method, name)
	}
	if exists {
		return nil
	}
	if err := make(); err != nil {
		return fmt.Errorf("manager: %s(%q): %w", method, name, err)
	}
	return nil
}

// stopEvents writes what the recorders hold, for at most the shutdown
// timeout, and stops both pipelines.
func (m *Manager) stopEvents() {
	m.mu.Lock()
	p := m.events
	m.events.stopped = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	if p.v1 != nil {
		wg.Go(func() { p.v1.stop(m.opts.shutdownTimeout) })
	}
	if p.legacy != nil {
		wg.Go(func() { p.legacy.stop(m.opts.shutdownTimeout) })
	}
	wg.Wait()
}
