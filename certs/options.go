package certs

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
)

// Option configures an Authority.
type Option func(*options)

type options struct {
	hosts      []string
	validating []string
	mutating   []string
	crds       []string
	validity   time.Duration
	log        logr.Logger
	http       *http.Client
}

// DefaultValidity is the lifetime of the CA and of the serving certificate
// without WithValidity: one year.
const DefaultValidity = 365 * 24 * time.Hour

// MinValidity is the shortest lifetime WithValidity accepts: rotation
// needs a third of it to move every replica to a new CA, and waits at
// least a second for the API servers to learn a new bundle.
const MinValidity = 10 * time.Second

// WithHosts sets the DNS names and IP addresses the serving certificate is
// valid for; at least one is required. For a webhook behind the Service
// svc in namespace ns they are typically svc, svc.ns, svc.ns.svc and
// svc.ns.svc.cluster.local; an IP address ("127.0.0.1") becomes an IP
// subject alternative name.
func WithHosts(hosts ...string) Option {
	return func(o *options) { o.hosts = append(o.hosts, hosts...) }
}

// WithValidatingWebhooks names ValidatingWebhookConfigurations whose
// webhooks all get the CA bundle.
func WithValidatingWebhooks(names ...string) Option {
	return func(o *options) { o.validating = append(o.validating, names...) }
}

// WithMutatingWebhooks names MutatingWebhookConfigurations whose webhooks
// all get the CA bundle.
func WithMutatingWebhooks(names ...string) Option {
	return func(o *options) { o.mutating = append(o.mutating, names...) }
}

// WithCRDs names CustomResourceDefinitions converted by the webhook: their
// spec.conversion.webhook.clientConfig.caBundle gets the CA bundle.
func WithCRDs(names ...string) Option {
	return func(o *options) { o.crds = append(o.crds, names...) }
}

// WithValidity sets the lifetime of each CA and serving certificate,
// DefaultValidity by default and at least MinValidity. Rotation starts
// when a third of it remains.
func WithValidity(d time.Duration) Option { return func(o *options) { o.validity = d } }

// WithLogger sets where the Authority logs rotations (at V(0)) and errors;
// nothing is logged by default.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithHTTPClient makes the Authority's clients send through hc, the
// manager's shared client, instead of one built from the rest.Config.
func WithHTTPClient(hc *http.Client) Option { return func(o *options) { o.http = hc } }

func newOptions(opts []Option) (*options, error) {
	o := &options{validity: DefaultValidity, log: logr.Discard()}
	for _, opt := range opts {
		opt(o)
	}
	if len(o.hosts) == 0 {
		return nil, errors.New("certs: WithHosts: the serving certificate needs at least one DNS name or IP address")
	}
	for _, h := range o.hosts {
		if h == "" {
			return nil, errors.New("certs: WithHosts: empty host name")
		}
	}
	if o.validity < MinValidity {
		return nil, fmt.Errorf("certs: WithValidity(%v): must be at least %v", o.validity, MinValidity)
	}
	for _, list := range []struct {
		option string
		names  []string
	}{{"WithValidatingWebhooks", o.validating}, {"WithMutatingWebhooks", o.mutating}, {"WithCRDs", o.crds}} {
		for _, n := range list.names {
			if n == "" {
				return nil, fmt.Errorf("certs: %s: empty name", list.option)
			}
		}
	}
	return o, nil
}

// splitHosts separates IP addresses from DNS names.
func splitHosts(hosts []string) (dns []string, ips []net.IP) {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, h)
		}
	}
	return dns, ips
}
