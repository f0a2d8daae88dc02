package manager

import (
	"fmt"
	"sync"

	"k8s.io/client-go/kubernetes"
)

// clientset is client-go's typed clientset of the manager's cluster, made
// on first use, for the client-go machinery the manager drives: leader
// election's Lease lock, the event recorders' sinks, and the TokenReviews
// and SubjectAccessReviews of secure serving. The cluster itself has none,
// so that programs without those do not link client-go's typed clients.
type clientset struct {
	once sync.Once
	cs   kubernetes.Interface
	err  error
}

// clientset returns the manager's clientset, made once.
func (m *Manager) clientset() (kubernetes.Interface, error) {
	m.typed.once.Do(func() {
		m.typed.cs, m.typed.err = kubernetes.NewForConfigAndClient(m.cluster.Config(), m.cluster.HTTPClient())
		if m.typed.err != nil {
			m.typed.err = fmt.Errorf("clientset: %w", m.typed.err)
		}
	})
	return m.typed.cs, m.typed.err
}
