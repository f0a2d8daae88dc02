package http1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// maxBody is the largest request body the Transport sends itself.
const maxBody = 128 << 10

// Options tunes a Transport's pool. The zero value keeps net/http's
// defaults: two idle connections per host, no idle timeout.
type Options struct {
	// MaxIdlePerHost is how many idle connections to one host the pool
	// keeps; more are closed when they fall idle.
	MaxIdlePerHost int
	// IdleTimeout closes a connection idle this long. Zero keeps idle
	// connections until they are next taken (one the server closed is
	// then dropped) or CloseIdleConnections.
	IdleTimeout time.Duration
}

// Transport is an http.RoundTripper that makes plain HTTP/1.1 exchanges
// on the caller's goroutine and hands every other request to the round
// tripper it wraps (see the package documentation for which). It is safe
// for concurrent use.
type Transport struct {
	next     http.RoundTripper
	opts     Options
	pool     pool
	compress bool // ask for gzip, as net/http does unless DisableCompression

	// fallback is set once a dialled connection turns out to hide its
	// socket (a dialer that wraps connections), so that idle connections
	// cannot be checked: every request then goes to next.
	fallback atomic.Bool
}

// New returns a Transport over next, which must be an *http.Transport or
// wrap one (client-go's transport cache and CA rotation do, and say so
// through a WrappedRoundTripper method). The Transport dials with that
// *http.Transport's dialer and TLS configuration, looking them up again
// for every connection, and hands next the requests it does not handle.
// New reports false, and returns nil, if next wraps no *http.Transport.
func New(next http.RoundTripper, opts Options) (*Transport, bool) {
	base := Base(next)
	if base == nil {
		return nil, false
	}
	if opts.MaxIdlePerHost <= 0 {
		opts.MaxIdlePerHost = http.DefaultMaxIdleConnsPerHost
	}
	t := &Transport{next: next, opts: opts, compress: !base.DisableCompression}
	t.pool.init(opts)
	//lint:ignore SA1019 a transport with the old DialTLS still dials with it, so it is not ours to replace
	if base.DialTLSContext != nil || base.DialTLS != nil || !canPeek {
		t.fallback.Store(true)
	}
	return t, true
}

// Base returns the *http.Transport rt is or wraps, or nil.
func Base(rt http.RoundTripper) *http.Transport {
	for range 16 { // a bound, in case a wrapper returns itself
		switch r := rt.(type) {
		case *http.Transport:
			return r
		case interface{ WrappedRoundTripper() http.RoundTripper }:
			rt = r.WrappedRoundTripper()
		default:
			return nil
		}
	}
	return nil
}

// RoundTrip sends req and returns its response; see http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.handles(req) {
		return t.next.RoundTrip(req)
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		_ = closeBody(req)
		return nil, context.Cause(ctx)
	}
	for attempt := 0; ; attempt++ {
		c, err := t.conn(ctx, req)
		if errors.Is(err, errNotOurs) {
			return t.next.RoundTrip(req)
		}
		if err != nil {
			_ = closeBody(req)
			return nil, err
		}
		resp, err := c.exchange(ctx, req, t)
		if err != nil && attempt == 0 && c.reused && repeatable(req, err) {
			continue
		}
		return resp, err
	}
}

// refresh lets the round trippers between the Transport and the
// *http.Transport (client-go's CA rotation reloads the CA file only when a
// request passes through it) swap the *http.Transport before a dial looks
// it up: it sends them a request whose context has already ended, which
// net/http refuses at once, without any I/O.
func (t *Transport) refresh(u *url.URL) {
	if _, ok := t.next.(*http.Transport); ok {
		return
	}
	req, err := http.NewRequestWithContext(ended, http.MethodGet, u.Scheme+"://"+u.Host+"/", nil)
	if err != nil {
		return
	}
	if resp, err := t.next.RoundTrip(req); err == nil {
		_ = resp.Body.Close()
	}
}

// ended is a context that has ended, for refresh's requests.
var ended = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// CloseIdleConnections closes the idle connections of the Transport and of
// the round tripper it wraps.
func (t *Transport) CloseIdleConnections() {
	t.pool.closeIdle()
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	} else if b := Base(t.next); b != nil {
		b.CloseIdleConnections()
	}
}

// handles reports whether the Transport makes req's exchange itself.
func (t *Transport) handles(req *http.Request) bool {
	if t.fallback.Load() || req.URL == nil || req.URL.Host == "" || req.Header == nil {
		return false // net/http says what is wrong
	}
	if req.Host != "" && !validHost(req.Host) || !validHost(req.URL.Host) {
		return false // net/http converts internationalised names, cuts zones, or sends no Host
	}
	switch req.URL.Scheme {
	case "https", "http":
	default:
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodOptions, "":
	default:
		return false
	}
	// A body of unknown length would be sent chunked, and net/http probes
	// a zero ContentLength with a non-nil body; leave both to it.
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
		return false
	}
	// A server may answer before it has read a large body (429, 413, 401)
	// and close the connection; net/http reads while it writes and returns
	// that answer, where a write-then-read exchange would see only the
	// broken connection. Go's server reads up to 256 KiB of a body it did
	// not ask for before it closes, so a smaller body is always written.
	if req.ContentLength > maxBody {
		return false
	}
	if len(req.TransferEncoding) > 0 || req.Trailer != nil {
		return false
	}
	h := req.Header
	if h.Get("Upgrade") != "" || h.Get("Expect") != "" || h.Get("Connection") != "" {
		return false
	}
	return !streams(req.URL)
}

// streams reports whether u asks for a response that stays open: a watch
// (?watch=, or the old /watch/ paths) or a followed log. The API server
// takes any first value but "0" and "false" (in any case) for true, and
// unescapes the names, as url.ParseQuery does: streams says true at least
// whenever it would, and for every value of the parameter but exactly
// those two.
func streams(u *url.URL) bool {
	if strings.Contains(u.Path, "/watch/") {
		return true
	}
	for q := u.RawQuery; q != ""; {
		var p string
		p, q, _ = strings.Cut(q, "&")
		name, value, _ := strings.Cut(p, "=")
		if strings.ContainsAny(name, "%+") {
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
		}
		if (name == "watch" || name == "follow") && value != "false" && value != "0" {
			return true
		}
	}
	return false
}

// repeatable reports whether req may be sent again after err on a reused
// connection: it must be safe to repeat, and err must say the connection
// was dead, not that the server answered badly.
func repeatable(req *http.Request, err error) bool {
	if req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != "" {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody {
		return false
	}
	return err == io.EOF || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// canonicalAddr returns u's host and port, the port defaulted from the
// scheme.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func closeBody(req *http.Request) error {
	if req.Body == nil {
		return nil
	}
	return req.Body.Close()
}

// WrappedRoundTripper returns the round tripper the Transport wraps, for
// client-go's helpers that look through wrappers for the *http.Transport
// (its TLS configuration, its dialer).
func (t *Transport) WrappedRoundTripper() http.RoundTripper { return t.next }
