package cluster

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/http1"
)

// WithHTTP2 sets whether the cluster's connections to the API server may
// speak HTTP/2 (default false: HTTP/1.1). See the package documentation,
// "Connections", for why steady defaults to HTTP/1.1 and what it costs.
// manager.WithAPIServerHTTP2 passes it on.
func WithHTTP2(on bool) Option { return func(o *options) { o.http2 = on } }

// Dead connections: what the keepalive dialer of an HTTP/1.1 cluster
// probes with. A connection whose peer is gone is closed after
// keepAliveIdle plus keepAliveCount probes keepAliveInterval apart (45 s),
// as client-go's HTTP/2 health check closes one after 30 s without a
// frame and a ping unanswered for 15 s. userTimeout bounds the same wait
// for a connection with data the peer never acknowledged, where keepalive
// probes are not sent (Linux only; see dial_linux.go).
const (
	keepAliveIdle     = 15 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 6
	userTimeout       = keepAliveIdle + keepAliveCount*keepAliveInterval
	dialTimeout       = 30 * time.Second // client-go's
	// idleConnections is how many idle connections the HTTP/1.1 pool keeps
	// (client-go keeps 25): one per reconcile worker that writes, so that
	// a burst of writes does not end in closing connections and shaking
	// hands again.
	idleConnections = 100
	// idleTimeout closes a pooled connection idle this long (client-go: 90
	// s), before kube-apiserver closes it (after 90 s idle). HTTP/1.1 has
	// no GOAWAY: a write sent on a connection the server is closing fails,
	// and net/http retries only requests that are safe to repeat.
	idleTimeout = 45 * time.Second
)

// transportConfig returns the config the cluster's HTTP client is made
// from: a copy of cfg that, unless http2 or the config names its own
// protocols (TLSClientConfig.NextProtos), offers the server only HTTP/1.1.
// Whenever its connections will speak HTTP/1.1, whoever chose it, they
// get what HTTP/2 would have given them in its place: keepalive probes
// (unless cfg has its own Dial), a pool sized for concurrent writers, and
// an idle timeout shorter than the server's. A config with its own
// Transport is used as given.
func transportConfig(cfg *rest.Config, http2, fast bool) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.Transport != nil {
		return cfg
	}
	if len(cfg.NextProtos) == 0 && !http2 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	if slices.Contains(cfg.NextProtos, "h2") || len(cfg.NextProtos) == 0 {
		return cfg // HTTP/2, with client-go's health check
	}
	if cfg.Dial == nil {
		d := &net.Dialer{
			Timeout: dialTimeout,
			KeepAliveConfig: net.KeepAliveConfig{
				Enable:   true,
				Idle:     keepAliveIdle,
				Interval: keepAliveInterval,
				Count:    keepAliveCount,
			},
			Control: controlSocket,
		}
		cfg.Dial = d.DialContext
	}
	// The synchronous transport goes right above client-go's transport,
	// under the config's own wrappers, which still see every request.
	// Without fast paths requests go through client-go's transport alone,
	// whose pool is set up all the same.
	own := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if fast {
			rt = synchronous(rt)
		} else {
			setPool(rt)
		}
		if own != nil {
			rt = own(rt)
		}
		return rt
	}
	return cfg
}

// synchronous returns rt under an http1.Transport, which makes plain
// exchanges on the caller's goroutine (see the package documentation,
// "Connections"), and sets up the pool of the *http.Transport rt is or
// wraps for the requests it still makes (watches, for one).
func synchronous(rt http.RoundTripper) http.RoundTripper {
	t, ok := http1.New(rt, http1.Options{MaxIdlePerHost: idleConnections, IdleTimeout: idleTimeout})
	if !ok {
		return rt // no *http.Transport underneath to dial with
	}
	setPool(rt)
	return t
}

// setPool sets up the pool of the *http.Transport rt is or wraps, if any,
// for HTTP/1.1: idleConnections idle connections per host, closed after
// idleTimeout. The config has a Dial (the keepalive dialer, or its own),
// and client-go gives a config with a Dial an *http.Transport of its own
// (its cache keys transports by the dialer), so this changes no other
// client's.
func setPool(rt http.RoundTripper) {
	if base := http1.Base(rt); base != nil {
		base.MaxIdleConnsPerHost = idleConnections
		base.IdleConnTimeout = idleTimeout
	}
}

// newHTTPClient returns the HTTP client every client of the cluster sends
// through, so that they share one pool of connections. Its transport sets
// the requests' User-Agent (client-go's default unless cfg names one), as
// each client's own transport did.
func newHTTPClient(cfg *rest.Config, http2, fast bool) (*http.Client, error) {
	cfg = transportConfig(cfg, http2, fast)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: HTTP client: %w", err)
	}
	return hc, nil
}

// HTTPClient returns the HTTP client all of the cluster's clients send
// through (HTTP/1.1 unless WithHTTP2; see the package documentation). Pass
// it to client-go's NewForConfigAndClient constructors, with Config, to
// make clients that share the cluster's connections.
func (c *Cluster) HTTPClient() *http.Client { return c.http }
