package manager

import (
	corev1 "k8s.io/api/core/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// EventRecorderFor returns a recorder of Kubernetes Events (what `kubectl
// describe` shows) reported by component name, such as a controller's name.
// The recorders share one broadcaster, started on first use and stopped
// when Start returns, after the controllers: events recorded during their
// last reconciles are still sent.
func (m *Manager) EventRecorderFor(name string) (record.EventRecorder, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		cs, err := m.cluster.Clientset()
		if err != nil {
			return nil, err
		}
		m.events = record.NewBroadcaster()
		// Events("") writes each event in its object's namespace.
		m.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	}
	return m.events.NewRecorder(m.cluster.Scheme(), corev1.EventSource{Component: name}), nil
}

// stopEvents flushes and stops the broadcaster, if one was started.
func (m *Manager) stopEvents() {
	m.mu.Lock()
	b := m.events
	m.mu.Unlock()
	if b != nil {
		b.Shutdown()
	}
}
