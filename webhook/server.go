package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/steadyctl/steady/serving"
)

// Server serves webhooks over HTTPS: the handlers of package admission
// and conversion, or any http.Handler, each at its own path.
type Server struct {
	opts *options

	mu       sync.Mutex
	handlers map[string]http.Handler
	started  bool
	addr     string // once listening
	getCert  func(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// NewServer returns a Server configured by opts. A value that makes no
// sense is an error naming its option.
func NewServer(opts ...Option) (*Server, error) {
	o := newOptions(opts)
	switch {
	case o.addr == "":
		return nil, errors.New("webhook: WithAddr: empty address")
	case o.maxBodyBytes <= 0:
		return nil, fmt.Errorf("webhook: WithMaxBodyBytes(%d): the bound must be positive", o.maxBodyBytes)
	case o.shutdownTimeout < 0:
		return nil, fmt.Errorf("webhook: WithShutdownTimeout(%v): negative", o.shutdownTimeout)
	case o.getCertificate == nil && o.certDir == "":
		return nil, errors.New("webhook: WithCertDir: empty directory and no WithCertificate")
	case o.getCertificate == nil && (o.certName == "" || o.keyName == ""):
		return nil, fmt.Errorf("webhook: WithCertNames(%q, %q): empty file name", o.certName, o.keyName)
	}
	return &Server{opts: o, handlers: map[string]http.Handler{}}, nil
}

// Handle serves h at path, which starts with "/" and names a webhook in
// the metrics (controller-runtime's paths, /validate-<group>-<version>-<kind>
// and the like, are what the builder uses). A path can be registered once,
// and only before Start.
func (s *Server) Handle(path string, h http.Handler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.started:
		return fmt.Errorf("webhook: cannot register %s after Start", path)
	case !strings.HasPrefix(path, "/"):
		return fmt.Errorf("webhook: path %q does not start with /", path)
	case h == nil:
		return fmt.Errorf("webhook: nil handler for %s", path)
	case s.handlers[path] != nil:
		return fmt.Errorf("webhook: a handler is already registered at %s", path)
	}
	s.handlers[path] = h
	return nil
}

// Registered reports whether a handler is registered at path.
func (s *Server) Registered(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[path] != nil
}

// Paths returns how many paths have handlers: a manager starts its server
// only when there is one.
func (s *Server) Paths() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.handlers)
}

// NeedLeaderElection is false: every replica serves webhooks, since the
// API server calls whichever one its Service picks.
func (s *Server) NeedLeaderElection() bool { return false }

// Addr returns the address the server listens on once Start has opened
// it, "" before.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Ready is nil once the server listens and has a certificate to present,
// and says which is missing otherwise; the manager serves it on /readyz,
// so that a Service sends no admission call to a replica that would fail
// it.
func (s *Server) Ready() error {
	s.mu.Lock()
	addr, get := s.addr, s.getCert
	s.mu.Unlock()
	if addr == "" {
		return errors.New("webhook server not listening yet")
	}
	if cert, err := get(&tls.ClientHelloInfo{}); err != nil || cert == nil {
		return fmt.Errorf("webhook server has no certificate: %v", err)
	}
	return nil
}

// Start serves until ctx is done, then stops taking connections and waits
// up to the shutdown timeout for requests in flight. It fails at once when
// the certificate files cannot be read or the address cannot be bound.
func (s *Server) Start(ctx context.Context) error {
	get, err := s.certificate()
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("webhook: server started twice")
	}
	s.started = true
	mux := http.NewServeMux()
	for path, h := range s.handlers {
		mux.Handle(path, s.instrument(path, h))
	}
	s.mu.Unlock()

	ln, err := net.Listen("tcp", s.opts.addr)
	if err != nil {
		return fmt.Errorf("webhook: WithAddr(%q): %w", s.opts.addr, err)
	}
	srv := &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: get},
		ReadHeaderTimeout: readHeaderTimeout,
		ErrorLog:          serving.ErrorLog(s.opts.log),
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(s.opts.http2)
	s.mu.Lock()
	s.addr, s.getCert = ln.Addr().String(), get
	s.mu.Unlock()
	s.opts.log.Info("webhook server listening", "addr", ln.Addr().String())

	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-served:
		return fmt.Errorf("webhook: serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("webhook: shutting down: %w", err)
	}
	return nil
}

// certificate returns what the server presents: WithCertificate's, or the
// pair in the certificate directory, reloaded when it changes.
func (s *Server) certificate() (func(*tls.ClientHelloInfo) (*tls.Certificate, error), error) {
	if s.opts.getCertificate != nil {
		return s.opts.getCertificate, nil
	}
	cert, err := serving.LoadCertificate(filepath.Join(s.opts.certDir, s.opts.certName), filepath.Join(s.opts.certDir, s.opts.keyName),
		serving.WithLogger(s.opts.log))
	if err != nil {
		return nil, fmt.Errorf("webhook: WithCertDir(%q): %w", s.opts.certDir, err)
	}
	return cert.GetCertificate, nil
}
