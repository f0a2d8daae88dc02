package manager

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/webhook"
)

// WithWebhookServer configures the manager's webhook server (see
// WebhookServer) with opts, after the manager's logger and metrics:
// webhook.WithAddr (":9443" by default), webhook.WithCertDir and the rest.
func WithWebhookServer(opts ...webhook.Option) Option {
	return func(o *options) { o.webhook = append(o.webhook, opts...) }
}

// WithWebhookCertificates makes the webhook server present certificates
// the operator manages itself, instead of files that cert-manager
// mounts: a certs.Authority keeps a CA and the serving certificate in the
// Secret secret, injects the CA bundle into the configurations and CRDs
// that opts name (certs.WithValidatingWebhooks, certs.WithCRDs, ...), and
// rotates both before they expire. It runs on every replica, and /readyz
// fails until this replica serves a certificate whose CA every named
// configuration carries. certs.WithHosts (the Service's DNS names) is
// required.
func WithWebhookCertificates(secret types.NamespacedName, opts ...certs.Option) Option {
	return func(o *options) { o.certSecret, o.certs = &secret, append(o.certs, opts...) }
}

// webhooks is the manager's webhook server and what it needs.
type webhooks struct {
	server    *webhook.Server
	authority *certs.Authority // nil unless WithWebhookCertificates
}

// newWebhooks makes the webhook server; it is started only if a webhook
// is registered on it.
func (m *Manager) newWebhooks() error {
	wm, err := metrics.NewWebhook(m.registry)
	if err != nil {
		return err
	}
	log := m.log.WithName("webhook")
	opts := []webhook.Option{webhook.WithLogger(log), webhook.WithMetrics(wm)}
	if m.opts.certSecret != nil {
		copts := append([]certs.Option{certs.WithLogger(log.WithName("certs")), certs.WithHTTPClient(m.cluster.HTTPClient())}, m.opts.certs...)
		a, err := certs.New(m.cluster.Config(), *m.opts.certSecret, copts...)
		if err != nil {
			return fmt.Errorf("WithWebhookCertificates: %w", err)
		}
		m.webhooks.authority = a
		opts = append(opts, webhook.WithCertificate(a.GetCertificate))
	}
	s, err := webhook.NewServer(append(opts, m.opts.webhook...)...)
	if err != nil {
		return fmt.Errorf("WithWebhookServer: %w", err)
	}
	m.webhooks.server = s
	return nil
}

// WebhookServer returns the manager's webhook server, on which the
// builder's WebhookManagedBy registers typed webhooks; register others
// with its Handle before Start. Start runs it, on every replica, if it has
// at least one handler, and /readyz then includes its readiness
// ("webhook") and, with WithWebhookCertificates, the certificates'
// ("webhook-certificates").
func (m *Manager) WebhookServer() *webhook.Server { return m.webhooks.server }

// webhookRunnables returns what serving webhooks takes, and adds their
// readiness checks; nothing when no webhook is registered.
func (m *Manager) webhookRunnables() []Runnable {
	s := m.webhooks.server
	if s.Paths() == 0 {
		return nil
	}
	m.health.mu.Lock()
	defer m.health.mu.Unlock()
	m.health.addReady("webhook", s.Ready)
	rs := []Runnable{s}
	if a := m.webhooks.authority; a != nil {
		m.health.addReady("webhook-certificates", a.Ready)
		rs = append(rs, a)
	}
	return rs
}
