package certs

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
)

// Authority keeps a webhook server's CA and serving certificate in a
// Secret, injects the CA bundle where the API server reads it and rotates
// both before they expire. Every replica of an operator runs one on the
// same Secret. Its methods are safe for concurrent use.
type Authority struct {
	secret  types.NamespacedName
	policy  policy
	targets []target
	log     logr.Logger
	clock   clock.WithTicker
	api     *clients
	dyn     dynamic.Interface
	started atomic.Bool

	mu        sync.RWMutex
	cert      *tls.Certificate // served; nil until a Secret was read
	certCA    []byte           // DER of the CA that signed cert
	bundle    []byte           // PEM of ca.crt as last read
	status    map[target]targetStatus
	secretErr error // why the Secret could not be read or written, if so

	// Used by Start's goroutine only.
	lastRV        string    // resourceVersion of the newest Secret seen
	last          *material // what that Secret held, to recreate it if deleted
	injectedSince time.Time // when every target was first seen carrying injectedCA
	injectedCA    []byte
	retry         time.Duration // current delay of the next check while not ready
}

// New returns an Authority for the Secret named secret, talking to the API
// server of cfg. WithHosts is required; a value that makes no sense is an
// error naming its option. Nothing is read or written until Start.
func New(cfg *rest.Config, secret types.NamespacedName, opts ...Option) (*Authority, error) {
	if cfg == nil {
		return nil, errors.New("certs: New: nil rest.Config")
	}
	if secret.Namespace == "" || secret.Name == "" {
		return nil, fmt.Errorf("certs: New: the Secret needs a namespace and a name (got %q)", secret.String())
	}
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	hc := o.http
	if hc == nil {
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, fmt.Errorf("certs: HTTP client: %w", err)
		}
	}
	api, err := newClients(cfg, hc, secret.Namespace)
	if err != nil {
		return nil, fmt.Errorf("certs: clients: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("certs: dynamic client: %w", err)
	}
	a := &Authority{
		secret: secret,
		policy: newPolicy(o.validity, o.hosts),
		log:    o.log.WithValues("secret", secret.String()),
		clock:  clock.RealClock{},
		api:    api,
		dyn:    dyn,
	}
	for _, n := range o.validating {
		a.targets = append(a.targets, target{kindValidating, n})
	}
	for _, n := range o.mutating {
		a.targets = append(a.targets, target{kindMutating, n})
	}
	for _, n := range o.crds {
		a.targets = append(a.targets, target{kindCRD, n})
	}
	return a, nil
}

// NeedLeaderElection returns false: every replica serves webhooks, so
// every replica needs a certificate.
func (a *Authority) NeedLeaderElection() bool { return false }

// GetCertificate returns the serving certificate this replica presents,
// the one last read from the Secret; it is a tls.Config.GetCertificate.
// Before Start has read the Secret it returns an error.
func (a *Authority) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.cert == nil {
		return nil, fmt.Errorf("certs: no serving certificate loaded from Secret %s yet", a.secret)
	}
	return a.cert, nil
}

// CABundle returns the CA bundle, PEM, as last read from the Secret: the
// newest CA first and, while a rotation is under way, the previous one.
// It is nil before Start has read the Secret.
func (a *Authority) CABundle() []byte {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return bytes.Clone(a.bundle)
}

// Ready returns nil once this replica presents a serving certificate and
// every named webhook configuration and CRD carries a CA bundle holding
// the CA that signed it: from then on the API server can call this
// replica. Otherwise it returns an error saying what is missing, naming
// the Secret, configuration or CRD. It asks nothing of the API server;
// it reports what the last check saw.
func (a *Authority) Ready() error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var errs []error
	if a.cert == nil {
		err := fmt.Errorf("certs: no serving certificate loaded from Secret %s yet", a.secret)
		if a.secretErr != nil {
			err = fmt.Errorf("%w: %w", err, a.secretErr)
		}
		errs = append(errs, err)
	} else if now := a.clock.Now(); !now.Before(a.cert.Leaf.NotAfter) {
		errs = append(errs, fmt.Errorf("certs: serving certificate from Secret %s expired at %s", a.secret, a.cert.Leaf.NotAfter.Format(time.RFC3339)))
	}
	for _, t := range a.targets {
		st, ok := a.status[t]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("certs: %s not checked yet", t))
		case st.err != nil:
			errs = append(errs, st.err)
		case a.cert != nil && !st.carries(a.certCA):
			errs = append(errs, fmt.Errorf("certs: %s: caBundle lacks the CA of the serving certificate", t))
		}
	}
	return errors.Join(errs...)
}
