package http1_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/steadyctl/steady/internal/http1"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server is a real HTTP/1.1 TLS server that counts the connections it
// accepts and closes.
type server struct {
	*httptest.Server
	opened, closed atomic.Int32
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes the tests cut short
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// transport returns a Transport over a base transport that trusts s.
func (s *server) transport(t *testing.T, opts http1.Options) *http1.Transport {
	t.Helper()
	base := s.Client().Transport.(*http.Transport).Clone()
	base.ForceAttemptHTTP2 = false
	rt := newTransport(t, base, opts)
	t.Cleanup(rt.CloseIdleConnections)
	return rt
}

func newTransport(t *testing.T, next http.RoundTripper, opts http1.Options) *http1.Transport {
	t.Helper()
	rt, ok := http1.New(next, opts)
	if !ok {
		t.Fatalf("New(%T): no *http.Transport found", next)
	}
	return rt
}

func do(t *testing.T, rt http.RoundTripper, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("%s %s: a read after the end returned %d, %v; want 0, io.EOF", req.Method, req.URL, n, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func request(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// echo answers with the method, the body and the protocol.
func echo(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	_, _ = io.WriteString(w, r.Method+" "+r.Proto+" "+string(b))
}

func TestExchangesReuseOneConnection(t *testing.T) {
	s := newServer(t, echo)
	rt := s.transport(t, http1.Options{})
	for i := range 20 {
		method, body := http.MethodGet, ""
		if i%2 == 1 {
			method, body = http.MethodPut, strings.Repeat("x", i*1000)
		}
		resp, got := do(t, rt, request(t, method, s.URL+"/obj", body))
		if want := method + " HTTP/1.1 " + body; got != want {
			t.Fatalf("request %d answered %.40q, want %.40q", i, got, want)
		}
		if resp.StatusCode != http.StatusOK || resp.TLS == nil || resp.Proto != "HTTP/1.1" {
			t.Fatalf("request %d: status %d, TLS %v, protocol %s", i, resp.StatusCode, resp.TLS != nil, resp.Proto)
		}
	}
	// HEAD has a Content-Length but no body; the connection stays usable.
	if resp, _ := do(t, rt, request(t, http.MethodHead, s.URL+"/obj", "")); resp.StatusCode != http.StatusOK {
		t.Fatalf("HEAD: status %d", resp.StatusCode)
	}
	do(t, rt, request(t, http.MethodGet, s.URL+"/obj", ""))
	if n := s.opened.Load(); n != 1 {
		t.Fatalf("22 sequential exchanges opened %d connections, want 1", n)
	}
}

func TestConcurrentExchanges(t *testing.T) {
	s := newServer(t, echo)
	rt := s.transport(t, http1.Options{MaxIdlePerHost: 8})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				body := strings.Repeat(string(rune('a'+g)), i+1)
				resp, err := rt.RoundTrip(request(t, http.MethodPost, s.URL, body))
				if err != nil {
					t.Error(err)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != "POST HTTP/1.1 "+body {
					t.Errorf("answered %q (%v), want the echo of %q", b, err, body)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := s.opened.Load(); n > 8 {
		t.Fatalf("8 concurrent writers opened %d connections, want at most 8", n)
	}
}

// The server closing idle connections (its idle timeout, a restart) must
// not fail the next request, a write included: the Transport sees the
// closed connection before writing to it.
func TestServerClosedIdleConnectionIsNotUsed(t *testing.T) {
	s := newServer(t, echo)
	rt := s.transport(t, http1.Options{})
	for i := range 5 {
		do(t, rt, request(t, http.MethodPut, s.URL, "v"))
		s.CloseClientConnections()
		testenv.Eventually(t, 10*time.Second, "the server to close the connection", func() bool { return s.closed.Load() == int32(i+1) })
	}
	if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "last")); got != "PUT HTTP/1.1 last" {
		t.Fatalf("answered %q", got)
	}
	if n := s.opened.Load(); n != 6 {
		t.Fatalf("opened %d connections, want 6 (one after each close)", n)
	}
}

// A reused connection that dies after the request was written fails a
// write (the server may have acted on it) and repeats a read.
func TestOnlyReadsAreRepeatedOnADeadConnection(t *testing.T) {
	var seen atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) == 2 { // the second request: hang up without answering
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		echo(w, r)
	})
	rt := s.transport(t, http1.Options{})
	do(t, rt, request(t, http.MethodGet, s.URL, ""))
	if _, got := do(t, rt, request(t, http.MethodGet, s.URL, "")); got != "GET HTTP/1.1 " {
		t.Fatalf("the repeated GET answered %q", got)
	}
	if n := seen.Load(); n != 3 {
		t.Fatalf("the server saw %d requests, want 3 (the GET repeated once)", n)
	}

	seen.Store(0)
	do(t, rt, request(t, http.MethodGet, s.URL, ""))
	_, err := rt.RoundTrip(request(t, http.MethodPut, s.URL, "once"))
	if err == nil {
		t.Fatal("a PUT whose connection died after writing succeeded")
	}
	if n := seen.Load(); n != 2 {
		t.Fatalf("the server saw %d requests, want 2 (the PUT not repeated)", n)
	}
}

// A server that ends TLS (close_notify) in the same segment as its answer,
// leaving the TCP connection open: TLS reads the alert with the answer's
// last bytes and reports it then, so the socket shows nothing; the
// connection must still not be written to again.
func TestConnectionAfterCloseNotifyIsNotUsed(t *testing.T) {
	var n atomic.Int32
	hold := make(chan struct{})
	s := &server{Server: httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 1 {
			echo(w, r)
			return
		}
		c, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		raw := tc.NetConn().(*coalescing)
		raw.hold()
		_, _ = bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		_ = bw.Flush()
		_ = tc.CloseWrite()
		raw.release() // the answer and the alert in one write
		<-hold
	}))}
	s.Listener = coalescingListener{s.Listener}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.opened.Add(1)
		}
	}
	s.StartTLS()
	defer s.Close()
	defer close(hold) // before Close, which waits for the hijacked handler
	rt := s.transport(t, http1.Options{})
	if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "1")); got != "ok" {
		t.Fatalf("first PUT answered %q", got)
	}
	if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "2")); got != "PUT HTTP/1.1 2" {
		t.Fatalf("second PUT answered %q", got)
	}
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("opened %d connections, want 2", n)
	}
}

// coalescing is a server connection whose writes can be held back and
// then sent as one.
type coalescing struct {
	net.Conn
	mu   sync.Mutex
	held *bytes.Buffer
}

func (c *coalescing) hold() {
	c.mu.Lock()
	c.held = new(bytes.Buffer)
	c.mu.Unlock()
}

func (c *coalescing) release() {
	c.mu.Lock()
	b := c.held
	c.held = nil
	c.mu.Unlock()
	_ = c.Conn.SetWriteDeadline(time.Time{}) // CloseWrite set it to now
	_, _ = c.Conn.Write(b.Bytes())
}

func (c *coalescing) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		return c.held.Write(p)
	}
	return c.Conn.Write(p)
}

type coalescingListener struct{ net.Listener }

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescing{Conn: c}, nil
}

func TestServerAskingToCloseGetsANewConnection(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		echo(w, r)
	})
	rt := s.transport(t, http1.Options{})
	for range 3 {
		do(t, rt, request(t, http.MethodPut, s.URL, "v"))
	}
	if n := s.opened.Load(); n != 3 {
		t.Fatalf("opened %d connections, want 3", n)
	}
}

func TestGzip(t *testing.T) {
	want := strings.Repeat("compressible ", 1000)
	var acceptEncoding atomic.Value
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding.Store(r.Header.Get("Accept-Encoding"))
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = io.WriteString(w, want)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, want)
		_ = zw.Close()
	})
	rt := s.transport(t, http1.Options{})
	for range 2 {
		resp, got := do(t, rt, request(t, http.MethodGet, s.URL, ""))
		if got != want || !resp.Uncompressed || resp.Header.Get("Content-Encoding") != "" || resp.ContentLength != -1 {
			t.Fatalf("answered %d bytes, Uncompressed %v, Content-Encoding %q, ContentLength %d; want %d bytes decompressed",
				len(got), resp.Uncompressed, resp.Header.Get("Content-Encoding"), resp.ContentLength, len(want))
		}
	}
	if n := s.opened.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1: a gzip body read to its end frees its connection", n)
	}

	base := s.Client().Transport.(*http.Transport).Clone()
	base.DisableCompression = true
	rt = newTransport(t, base, http1.Options{})
	defer rt.CloseIdleConnections()
	if _, got := do(t, rt, request(t, http.MethodGet, s.URL, "")); got != want || acceptEncoding.Load() != "" {
		t.Fatalf("with compression disabled: Accept-Encoding %q, %d bytes", acceptEncoding.Load(), len(got))
	}
}

func TestCancellation(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			_, _ = io.WriteString(w, "partial")
			_ = http.NewResponseController(w).Flush()
		}
		if r.URL.Path != "/" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		echo(w, r)
	})
	defer close(release)
	rt := s.transport(t, http1.Options{})

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := rt.RoundTrip(request(t, http.MethodGet, s.URL+"/slow-header", "").WithContext(ctx))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting for the header: err %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	resp, err := rt.RoundTrip(request(t, http.MethodGet, s.URL+"/slow-body", "").WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, context.DeadlineExceeded) || string(b) != "partial" {
		t.Fatalf("reading the body: %q, err %v; want the partial body and context.DeadlineExceeded", b, err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := rt.RoundTrip(request(t, http.MethodGet, s.URL, "").WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Fatalf("an already cancelled request: err %v", err)
	}

	// The cancelled exchanges' connections were closed, not pooled.
	opened := s.opened.Load()
	do(t, rt, request(t, http.MethodGet, s.URL, ""))
	if n := s.opened.Load(); n != opened+1 {
		t.Fatalf("after cancellations, a request used a pooled connection (%d opened, want %d)", n, opened+1)
	}
}

// Close while a Read is blocked ends the Read, for a plain body and for a
// gzip-compressed one (a log read by one goroutine, closed by another).
func TestCloseAbortsABlockedRead(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = io.WriteString(zw, "start")
			_ = zw.Flush()
		} else {
			_, _ = io.WriteString(w, "start")
		}
		_ = http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	rt := s.transport(t, http1.Options{})
	for _, path := range []string{"/plain", "/gzip"} {
		resp, err := rt.RoundTrip(request(t, http.MethodGet, s.URL+path, ""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 5)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		read := make(chan error, 1)
		go func() {
			_, err := resp.Body.Read(make([]byte, 10))
			read <- err
		}()
		time.AfterFunc(20*time.Millisecond, func() { resp.Body.Close() })
		select {
		case err := <-read:
			if err == nil {
				t.Fatalf("%s: a Read blocked when the body was closed returned no error", path)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Close did not end a blocked Read", path)
		}
	}
}

func TestBodyClosedEarlyClosesItsConnection(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("y", 1<<20))
	})
	rt := s.transport(t, http1.Options{})
	resp, err := rt.RoundTrip(request(t, http.MethodGet, s.URL, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Fatal("a read after Close succeeded")
	}
	if _, got := do(t, rt, request(t, http.MethodGet, s.URL, "")); len(got) != 1<<20 {
		t.Fatalf("second request: %d bytes", len(got))
	}
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("opened %d connections, want 2: an unread body's connection cannot be reused", n)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := newServer(t, echo)
	rt := s.transport(t, http1.Options{IdleTimeout: 20 * time.Millisecond})
	do(t, rt, request(t, http.MethodGet, s.URL, ""))
	testenv.Eventually(t, 10*time.Second, "the idle connection to be closed", func() bool { return s.closed.Load() == 1 })
	do(t, rt, request(t, http.MethodGet, s.URL, ""))
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("opened %d connections, want 2", n)
	}
}

func TestMaxIdlePerHost(t *testing.T) {
	block := make(chan struct{})
	var inFlight sync.WaitGroup
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		inFlight.Done()
		<-block
		echo(w, r)
	})
	rt := s.transport(t, http1.Options{MaxIdlePerHost: 2})
	var wg sync.WaitGroup
	inFlight.Add(4)
	for range 4 {
		wg.Go(func() { do(t, rt, request(t, http.MethodGet, s.URL, "")) })
	}
	inFlight.Wait()
	close(block)
	wg.Wait()
	testenv.Eventually(t, 10*time.Second, "the surplus connections to be closed", func() bool { return s.closed.Load() == 2 })
}

// wrapped hides the TCP connection's socket, as client-go's certificate
// rotation dialer does.
type wrapped struct{ net.Conn }

func TestDialerHidingTheSocketFallsBack(t *testing.T) {
	s := newServer(t, echo)
	base := s.Client().Transport.(*http.Transport).Clone()
	var dials atomic.Int32
	base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return wrapped{c}, err
	}
	rt := newTransport(t, base, http1.Options{})
	defer rt.CloseIdleConnections()
	for range 3 {
		if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "v")); got != "PUT HTTP/1.1 v" {
			t.Fatalf("answered %q", got)
		}
	}
	// One dial found the socket hidden; net/http's one connection did the rest.
	if n := dials.Load(); n != 2 {
		t.Fatalf("dialled %d times, want 2", n)
	}
}

// Requests the Transport leaves to net/http still work through it.
func TestStreamsGoToTheBase(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		for range 3 {
			_, _ = io.WriteString(w, "event\n")
			_ = http.NewResponseController(w).Flush()
		}
	})
	rt := s.transport(t, http1.Options{})
	resp, got := do(t, rt, request(t, http.MethodGet, s.URL+"/api/v1/configmaps?watch=true", ""))
	if got != "event\nevent\nevent\n" || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch answered %q", got)
	}
	// A body of unknown length goes out chunked, through net/http.
	req := request(t, http.MethodPost, s.URL, "")
	req.Body = io.NopCloser(bytes.NewReader([]byte("chunked")))
	req.ContentLength = -1
	if resp, _ := do(t, rt, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("chunked POST: status %d", resp.StatusCode)
	}
}

// tracked wraps a round tripper and says so, as client-go's transport
// cache and CA rotation do. It counts the requests it passes on, and
// apart the ones whose context has already ended (the Transport's
// refreshes, through which client-go's CA rotation reloads its CA file).
type tracked struct {
	rt              http.RoundTripper
	seen, refreshes atomic.Int32
}

func (w *tracked) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Context().Err() != nil {
		w.refreshes.Add(1)
	} else {
		w.seen.Add(1)
	}
	return w.rt.RoundTrip(r)
}

func (w *tracked) WrappedRoundTripper() http.RoundTripper { return w.rt }

func TestNewFindsTheTransportUnderWrappers(t *testing.T) {
	s := newServer(t, echo)
	w := &tracked{rt: s.Client().Transport.(*http.Transport).Clone()}
	rt := newTransport(t, w, http1.Options{})
	defer rt.CloseIdleConnections()
	if http1.Base(rt) != w.rt {
		t.Fatal("Base does not find the *http.Transport under the Transport and its wrapper")
	}
	do(t, rt, request(t, http.MethodPut, s.URL, "v"))
	if n := w.seen.Load(); n != 0 {
		t.Fatalf("the wrapper saw %d plain requests, want 0: the Transport makes them", n)
	}
	if n := w.refreshes.Load(); n != 1 {
		t.Fatalf("the wrapper saw %d refreshes, want 1: one before the one dial", n)
	}
	do(t, rt, request(t, http.MethodPut, s.URL, "again"))
	if n := w.refreshes.Load(); n != 1 {
		t.Fatalf("the wrapper saw %d refreshes, want 1: a pooled connection needs none", n)
	}
	do(t, rt, request(t, http.MethodGet, s.URL+"?watch=true", ""))
	if n := w.seen.Load(); n != 1 {
		t.Fatalf("the wrapper saw %d watches, want 1", n)
	}
	// A body a server may answer before reading (past 128 KiB) goes to
	// net/http, which reads the answer while it writes.
	if _, got := do(t, rt, request(t, http.MethodPut, s.URL, strings.Repeat("b", 200<<10))); len(got) != len("PUT HTTP/1.1 ")+200<<10 {
		t.Fatalf("a large PUT answered %d bytes", len(got))
	}
	if n := w.seen.Load(); n != 2 {
		t.Fatalf("the wrapper saw %d requests, want 2: the watch and the large PUT", n)
	}

	opaque := testkit.RoundTripFunc(func(r *http.Request) (*http.Response, error) { return nil, errors.New("unused") })
	if _, ok := http1.New(opaque, http1.Options{}); ok {
		t.Fatal("New accepted a round tripper that wraps no *http.Transport")
	}
}

// proxied stands for client-go's wrapper over an *http.Transport whose
// Proxy sends every request through a proxy: it answers in the proxy's
// place and counts the requests it is given.
type proxied struct {
	base *http.Transport
	seen atomic.Int32
}

func (p *proxied) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err // the Transport's refresh before a dial
	}
	p.seen.Add(1)
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("via proxy")), Request: r}, nil
}

func (p *proxied) WrappedRoundTripper() http.RoundTripper { return p.base }

// A host the *http.Transport reaches through a proxy is left to it: the
// Transport dials nothing.
func TestProxiedHostsGoToTheWrapped(t *testing.T) {
	s := newServer(t, echo)
	base := s.Client().Transport.(*http.Transport).Clone()
	base.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.invalid:3128") }
	next := &proxied{base: base}
	rt := newTransport(t, next, http1.Options{})
	defer rt.CloseIdleConnections()
	for range 2 {
		if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "v")); got != "via proxy" {
			t.Fatalf("answered %q, want the proxy's answer", got)
		}
	}
	if n := next.seen.Load(); n != 2 {
		t.Fatalf("the wrapped round tripper saw %d requests, want 2", n)
	}
	if n := s.opened.Load(); n != 0 {
		t.Fatalf("the Transport opened %d connections to a proxied host, want 0", n)
	}
}
