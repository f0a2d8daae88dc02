package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/steadyctl/steady/serving"
)

// The manager's HTTP endpoints, in the order of Manager.addrs.
const (
	slotMetrics = iota
	slotHealth
	slotPprof
	slots
)

// endpoint is one HTTP listener the options ask for.
type endpoint struct {
	option    string // the option that sets addr, for errors
	addr      string
	slot      int
	protected bool // it shows the process's internals: served through protect
}

// endpoints lists the listeners. Metrics and profiles are protected; the
// probes stay open to the kubelet.
func (o *options) endpoints() []endpoint {
	return []endpoint{
		{"WithMetricsAddr", o.metricsAddr, slotMetrics, true},
		{"WithHealthAddr", o.healthAddr, slotHealth, false},
		{"WithPprofAddr", o.pprofAddr, slotPprof, true},
	}
}

// PprofAddr returns the address /debug/pprof/ is served on, once Start has
// opened it ("" before, or when not served; see WithPprofAddr).
func (m *Manager) PprofAddr() string { return m.addr(slotPprof) }

// handler returns what an endpoint serves.
func (m *Manager) handler(slot int) http.Handler {
	mux := http.NewServeMux()
	switch slot {
	case slotMetrics:
		mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	case slotHealth:
		mux.Handle("/healthz", m.health.handler(m.health.healthz))
		mux.Handle("/readyz", m.health.handler(m.health.readyz))
	default:
		// Index serves every named profile (heap, goroutine, allocs, ...)
		// under /debug/pprof/<name>; the others take parameters of their own.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// servers are the manager's HTTP endpoints.
type servers struct {
	list []*http.Server
	wg   sync.WaitGroup
}

// serve opens the configured listeners, so that a taken port fails Start at
// once, naming the option that asked for it.
func (m *Manager) serve() (*servers, error) {
	s := &servers{}
	for _, ep := range m.opts.endpoints() {
		if ep.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", ep.addr)
		if err != nil {
			s.shutdown(m.log)
			return nil, fmt.Errorf("manager: %s(%q): %w", ep.option, ep.addr, err)
		}
		h := m.handler(ep.slot)
		if ep.protected {
			pln, ph, err := m.protect(ln, h)
			if err != nil {
				ln.Close()
				s.shutdown(m.log)
				return nil, fmt.Errorf("manager: %s(%q): %w", ep.option, ep.addr, err)
			}
			ln, h = pln, ph
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: serving.ErrorLog(m.log)}
		s.list = append(s.list, srv)
		m.mu.Lock()
		m.addrs[ep.slot] = ln.Addr().String()
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
