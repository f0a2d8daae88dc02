package manager

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/steadyctl/steady/serving"
)

// WithServingCertificate serves metrics and pprof with the PEM certificate
// (chain) and key in these files, reloaded when they change (a Secret that
// cert-manager rotates, mounted as a volume); Start fails with an error
// naming a file that cannot be read. Default: a self-signed certificate
// made at Start, which encrypts but which a scraper cannot verify.
func WithServingCertificate(certFile, keyFile string) Option {
	return func(o *options) { o.certFile, o.keyFile = certFile, keyFile }
}

// WithClientCA lets clients of the metrics and pprof endpoints
// authenticate with a certificate signed by a CA in this PEM file, as
// well as with a bearer token: its common name is the user and its
// organizations the groups that RBAC sees.
func WithClientCA(caFile string) Option { return func(o *options) { o.clientCAFile = caFile } }

// WithInsecureServing(true) serves metrics and pprof over plain HTTP to
// anyone who can reach their ports, without authentication or
// authorization. Use it only where the network keeps everyone else out,
// e.g. on 127.0.0.1 during development. Default (and false): HTTPS, every
// request authenticated and authorized by the API server (see package
// serving).
func WithInsecureServing(on bool) Option { return func(o *options) { o.insecureServing = on } }

// protection is what guards the protected endpoints, made once per Start.
type protection struct {
	once   sync.Once
	tls    *tls.Config
	filter *serving.Filter
	err    error
}

// protect guards a protected endpoint (metrics, profiles): TLS on its
// listener and, on its handler, authentication by TokenReview (or a client
// certificate) and authorization by SubjectAccessReview of the request's
// verb and path. An error fails Start.
func (m *Manager) protect(ln net.Listener, h http.Handler) (net.Listener, http.Handler, error) {
	if m.opts.insecureServing {
		return ln, h, nil
	}
	p := &m.protection
	p.once.Do(func() { p.tls, p.filter, p.err = m.newProtection() })
	if p.err != nil {
		return nil, nil, p.err
	}
	return tls.NewListener(ln, p.tls), p.filter.Wrap(h), nil
}

func (m *Manager) newProtection() (*tls.Config, *serving.Filter, error) {
	var cert *serving.Certificate
	var err error
	if m.opts.certFile != "" || m.opts.keyFile != "" {
		cert, err = serving.LoadCertificate(m.opts.certFile, m.opts.keyFile, serving.WithLogger(m.log))
	} else {
		hosts := []string{"localhost", "127.0.0.1"}
		if name, herr := os.Hostname(); herr == nil && name != "" {
			hosts = append(hosts, name)
		}
		cert, err = serving.SelfSignedCertificate(hosts...)
		m.log.Info("Serving metrics and pprof with a self-signed certificate; see WithServingCertificate", "hosts", hosts)
	}
	if err != nil {
		return nil, nil, err
	}
	cfg, err := serving.TLSConfig(cert, m.opts.clientCAFile)
	if err != nil {
		return nil, nil, fmt.Errorf("WithClientCA: %w", err)
	}
	api, err := serving.NewReviewer(m.cluster.Config(), m.cluster.HTTPClient())
	if err != nil {
		return nil, nil, err
	}
	filter, err := serving.NewFilter(api, serving.WithLogger(m.log))
	if err != nil {
		return nil, nil, err
	}
	return cfg, filter, nil
}
