package http1

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
)

// bufferSize is the size of a connection's read and write buffers, as
// net/http's: a typical request, headers and body, goes out in one write.
const bufferSize = 4 << 10

// hostKey is what the pool keeps connections by: a URL's scheme and host
// as written (a struct, so that a lookup does not build a string).
type hostKey struct{ scheme, host string }

// errNotOurs says a request is to go to the wrapped round tripper after
// all: its host is reached through a proxy, or the dialer's connections
// hide their socket, so that an idle one could not be checked.
var errNotOurs = errors.New("http1: request left to the wrapped round tripper")

// errHandshakeTimeout is the error of a TLS handshake that took longer than
// the *http.Transport's TLSHandshakeTimeout, as net/http words it.
var errHandshakeTimeout = errors.New("net/http: TLS handshake timeout")

// aLongTimeAgo is a deadline that has passed: setting it makes the
// connection's blocked reads and writes return at once.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one connection to a server, used by one exchange at a time.
type conn struct {
	nc     net.Conn        // TLS over TCP, or TCP for http
	raw    syscall.RawConn // the TCP socket, to look at while idle
	lr     limitedReader   // nc, as br reads it
	br     *bufio.Reader
	bw     *bufio.Writer
	tls    *tls.ConnectionState // for every response's TLS field; nil for http
	key    hostKey              // the pool's key
	reused bool                 // taken from the pool, not dialled for this request
	timer  *time.Timer          // closes the connection when idle too long

	// The *http.Transport's bounds on a response's header, as it had them
	// when it dialled: its size (MaxResponseHeaderBytes, or net/http's
	// default) and the wait for it (ResponseHeaderTimeout; zero: none).
	maxHeader     int64
	headerTimeout time.Duration
}

// defaultMaxHeader is net/http's bound on a response's header when the
// *http.Transport sets none: its header, and those of the informational
// (1xx) responses before it, together.
const defaultMaxHeader = 10 << 20

// limitedReader is a connection as its bufio.Reader reads it: while a
// response's header is read, no more than left bytes, as net/http's
// persistConn reads; then without a bound, for the body.
type limitedReader struct {
	r    net.Conn
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errHeaderLimit
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

var errHeaderLimit = errors.New("http1: response header limit reached")

// errHeaderTimeout is the error of a response whose header did not come
// within the *http.Transport's ResponseHeaderTimeout, as net/http's.
var errHeaderTimeout error = &timeoutError{"net/http: timeout awaiting response headers"}

// timeoutError is a net.Error that is a timeout, as net/http's.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string { return e.msg }

func (e *timeoutError) Timeout() bool { return true }

func (e *timeoutError) Temporary() bool { return true }

func (e *timeoutError) Is(err error) bool { return err == context.DeadlineExceeded }

// conn returns a live connection for req: a pooled one the server has not
// closed, or a new one.
func (t *Transport) conn(ctx context.Context, req *http.Request) (*conn, error) {
	key := hostKey{req.URL.Scheme, req.URL.Host}
	for {
		c := t.pool.get(key)
		if c == nil {
			return t.dial(ctx, key, req)
		}
		if c.idle() {
			c.reused = true
			return c, nil
		}
		c.close()
	}
}

// idle reports whether c, taken from the pool, is fit for another
// exchange: nothing unread above the socket or in it, and the server has
// not closed it. TLS 1.3 encrypts a record's type, so crypto/tls cannot
// tell a close_notify alert that came with an answer's last bytes from
// more data, and keeps it unread in its own buffer, where the socket does
// not show it: a read that may not wait takes it, or finds nothing.
func (c *conn) idle() bool {
	if c.br.Buffered() != 0 || !idle(c.raw) {
		return false
	}
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return true
	}
	_ = tc.SetReadDeadline(aLongTimeAgo)
	var b [1]byte
	n, err := tc.Read(b[:])
	_ = tc.SetReadDeadline(time.Time{})
	return n == 0 && errors.Is(err, os.ErrDeadlineExceeded)
}

// dial connects to req's host with the dialer of the *http.Transport
// underneath and, for https, its TLS configuration, offering only
// HTTP/1.1. A host the *http.Transport would reach through a proxy is left
// to it (errNotOurs): a pooled connection was dialled directly, so only a
// dial needs to ask.
func (t *Transport) dial(ctx context.Context, key hostKey, req *http.Request) (*conn, error) {
	u := req.URL
	t.refresh(u)
	base := Base(t.next)
	if base == nil {
		return nil, errNotOurs
	}
	if base.Proxy != nil {
		if p, err := base.Proxy(req); err != nil || p != nil {
			return nil, errNotOurs
		}
	}
	addr := canonicalAddr(u)
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	var raw syscall.RawConn
	sc, ok := nc.(syscall.Conn)
	if ok {
		raw, err = sc.SyscallConn()
	}
	if !ok || err != nil {
		_ = nc.Close()
		t.fallback.Store(true)
		return nil, errNotOurs
	}
	var state *tls.ConnectionState
	if u.Scheme == "https" {
		tc, err := handshake(ctx, base, nc, u.Hostname())
		if err != nil {
			_ = nc.Close()
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
		}
		nc = tc
		cs := tc.ConnectionState()
		state = &cs
	}
	c := &conn{nc: nc, raw: raw, lr: limitedReader{r: nc, left: math.MaxInt64}, bw: bufio.NewWriterSize(nc, bufferSize),
		tls: state, key: key, maxHeader: base.MaxResponseHeaderBytes, headerTimeout: base.ResponseHeaderTimeout}
	if c.maxHeader <= 0 {
		c.maxHeader = defaultMaxHeader
	}
	c.br = bufio.NewReaderSize(&c.lr, bufferSize)
	return c, nil
}

// handshake runs a TLS handshake over nc with base's TLS configuration,
// bounded by base's handshake timeout.
func handshake(ctx context.Context, base *http.Transport, nc net.Conn, host string) (*tls.Conn, error) {
	cfg := &tls.Config{}
	if base.TLSClientConfig != nil {
		cfg = base.TLSClientConfig.Clone()
	}
	cfg.NextProtos = []string{"http/1.1"}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	if d := base.TLSHandshakeTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errHandshakeTimeout)
		defer cancel()
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		if context.Cause(ctx) == errHandshakeTimeout {
			return nil, errHandshakeTimeout
		}
		return nil, err
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "" && p != "http/1.1" {
		return nil, fmt.Errorf("server chose protocol %q, not http/1.1", p)
	}
	return tc, nil
}

// exchange writes req on c and reads its response's header. The response's
// body reads from c, and returns c to the pool (or closes it) when read to
// its end or closed. On an error c is closed.
func (c *conn) exchange(ctx context.Context, req *http.Request, t *Transport) (*http.Response, error) {
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	}
	fail := func(err error) (*http.Response, error) {
		cancelled := !stop()
		c.close()
		if cancelled || ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	gz := t.gzips(req)
	if err := writeRequest(c.bw, req, gz); err != nil {
		return fail(err)
	}
	var timer *time.Timer // the wait for the header, as net/http's starts once the request is written
	if c.headerTimeout > 0 {
		timer = time.AfterFunc(c.headerTimeout, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	}
	resp, err := c.read(req)
	if timer != nil && !timer.Stop() {
		return fail(errHeaderTimeout) // the deadline has passed, whatever was read
	}
	if err != nil {
		return fail(err)
	}
	resp.TLS = c.tls
	reusable := !req.Close && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		stopped := stop()
		c.release(t, reusable && stopped)
		return resp, nil
	}
	b := &body{rc: resp.Body, c: c, t: t, ctx: ctx, stop: stop, reusable: reusable, left: resp.ContentLength}
	resp.Body = b
	if gz && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Body = &gzipBody{body: b}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
	}
	return resp, nil
}

// gzips reports whether t asks for req's response gzip-compressed, as
// net/http does: unless the *http.Transport disables compression, or req
// asks for an encoding or a range itself, or is a HEAD.
func (t *Transport) gzips(req *http.Request) bool {
	return t.compress && req.Method != http.MethodHead &&
		req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == ""
}

// read reads the response to req, skipping informational (1xx) ones.
// Their headers and the response's together may take c.maxHeader bytes
// read from the connection (what is buffered after them included), as
// with net/http: a server that sends an endless header, or endless
// informational responses, gets an error, not all of the memory.
func (c *conn) read(req *http.Request) (*http.Response, error) {
	c.lr.left = c.maxHeader
	resp, err := c.readHeader(req)
	if err != nil && c.lr.left <= 0 {
		err = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", c.maxHeader)
	}
	c.lr.left = math.MaxInt64
	return resp, err
}

func (c *conn) readHeader(req *http.Request) (*http.Response, error) {
	// ReadResponse reports a connection closed before the status line as
	// io.ErrUnexpectedEOF; a closed connection that sent nothing is io.EOF
	// here, which says the request may be repeated.
	if _, err := c.br.Peek(1); err != nil {
		return nil, err
	}
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// release returns c to t's pool if reusable, else closes it.
func (c *conn) release(t *Transport, reusable bool) {
	if reusable {
		t.pool.put(c)
		return
	}
	c.close()
}

func (c *conn) close() { _ = c.nc.Close() }
