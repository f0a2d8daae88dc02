package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// servers are the manager's HTTP endpoints.
type servers struct {
	list []*http.Server
	wg   sync.WaitGroup
}

// serve opens the metrics and health listeners, so that a taken port fails
// Start at once.
func (m *Manager) serve() (*servers, error) {
	s := &servers{}
	for i, ep := range []struct {
		addr string
		mux  func(*http.ServeMux)
	}{
		{m.opts.metricsAddr, func(mux *http.ServeMux) {
			mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
		}},
		{m.opts.healthAddr, func(mux *http.ServeMux) {
			mux.Handle("/healthz", m.health.handler(m.health.healthz))
			mux.Handle("/readyz", m.health.handler(m.health.readyz))
		}},
	} {
		if ep.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", ep.addr)
		if err != nil {
			s.shutdown(m.log)
			return nil, fmt.Errorf("manager: listening on %s: %w", ep.addr, err)
		}
		mux := http.NewServeMux()
		ep.mux(mux)
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		s.list = append(s.list, srv)
		m.mu.Lock()
		m.addrs[i] = ln.Addr().String()
		m.mu.Unlock()
		s.wg.Go(func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.log.Error(err, "http server stopped", "addr", ln.Addr().String())
			}
		})
	}
	return s, nil
}

// shutdown stops the servers, letting requests in flight finish briefly.
func (s *servers) shutdown(log logr.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range s.list {
		if err := srv.Shutdown(ctx); err != nil {
			log.Error(err, "http server shutdown")
		}
	}
	s.wg.Wait()
}
