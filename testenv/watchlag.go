package testenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// WatchLag is a second way into the environment's API server on which
// watch events arrive late while every other request is answered at
// once: the state of a controller whose informers lag behind its own
// writes, which a busy API server or network produces at random and a
// test needs on demand. Each event reaches the client the lag after the
// server sent it, in order. Faults of the environment (DropConnections,
// SetLatency) apply to it too.
//
// Create one with NewWatchLag and Close it when done.
type WatchLag struct {
	// Config reaches the API server as Environment.Config does, through
	// the lagging proxy.
	Config *rest.Config

	lag       atomic.Int64 // nanoseconds
	server    *http.Server
	listener  net.Listener
	transport *http.Transport
	done      chan struct{}
	wg        sync.WaitGroup

	mu      sync.Mutex
	seen    []byte        // the latest watch bytes from the server, for AwaitEvent
	arrived chan struct{} // closed and replaced when bytes arrive
}

// seenBytes bounds what AwaitEvent can look back on.
const seenBytes = 1 << 20

// NewWatchLag starts a proxy whose watch events arrive lag late; Set
// changes the lag for events sent from then on.
func (e *Environment) NewWatchLag(lag time.Duration) (*WatchLag, error) {
	upstream, err := url.Parse(e.Config.Host)
	if err != nil {
		return nil, fmt.Errorf("testenv: watch lag: %w", err)
	}
	upstreamTLS, err := rest.TLSConfigFor(e.Config)
	if err != nil {
		return nil, fmt.Errorf("testenv: watch lag: %w", err)
	}
	// The API server's own certificate is valid for 127.0.0.1 and signed
	// by the CA that Config trusts.
	cert, err := tls.LoadX509KeyPair(e.creds.certFile, e.creds.keyFile)
	if err != nil {
		return nil, fmt.Errorf("testenv: watch lag certificate: %w", err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		return nil, fmt.Errorf("testenv: watch lag: %w", err)
	}
	transport := &http.Transport{TLSClientConfig: upstreamTLS, ForceAttemptHTTP2: true}
	l := &WatchLag{listener: ln, transport: transport, done: make(chan struct{}), arrived: make(chan struct{})}
	l.Set(lag)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = upstream.Host
		},
		Transport:     transport,
		ErrorLog:      log.New(io.Discard, "", 0), // clients that go away are no news
		FlushInterval: -1,                         // a watch event goes on as soon as it is due
		ModifyResponse: func(resp *http.Response) error {
			if isWatch(resp.Request) {
				resp.Body = l.delay(resp.Body)
			}
			return nil
		},
	}
	l.server = &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	l.wg.Go(func() { _ = l.server.Serve(ln) })
	l.Config = rest.CopyConfig(e.Config)
	l.Config.Host = "https://" + ln.Addr().String()
	return l, nil
}

// Set changes the lag of the events the server sends from now on.
func (l *WatchLag) Set(lag time.Duration) { l.lag.Store(int64(max(lag, 0))) }

// AwaitEvent blocks until a watch event of an object at resourceVersion
// has reached the proxy from the server, or ctx ends. From then on the
// event's lag is fixed: a Set that follows applies to later events only.
// A test that sets a new lag right after a write awaits the write's event
// first, since the server sends it a little after answering the write.
// It looks back on the latest megabyte of watch data.
func (l *WatchLag) AwaitEvent(ctx context.Context, resourceVersion string) error {
	// The version as JSON, CBOR (a key and a value shorter than 24
	// bytes, byte strings as apimachinery writes strings) and protobuf
	// (ObjectMeta's field 6, a string shorter than 128 bytes) spell it.
	rv := []byte(resourceVersion)
	spellings := [][]byte{
		[]byte(`"resourceVersion":"` + resourceVersion + `"`),
		slices.Concat([]byte("\x4fresourceVersion"), []byte{0x40 | byte(len(rv))}, rv),
		slices.Concat([]byte{6<<3 | 2, byte(len(rv))}, rv),
	}
	for {
		l.mu.Lock()
		found := slices.ContainsFunc(spellings, func(b []byte) bool { return bytes.Contains(l.seen, b) })
		arrived := l.arrived
		l.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return fmt.Errorf("testenv: no watch event at resourceVersion %s: %w", resourceVersion, ctx.Err())
		case <-l.done:
			return fmt.Errorf("testenv: no watch event at resourceVersion %s: the proxy is closed", resourceVersion)
		}
	}
}

// record keeps data for AwaitEvent and wakes its callers.
func (l *WatchLag) record(data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, data...)
	if over := len(l.seen) - seenBytes; over > 0 {
		l.seen = append(l.seen[:0], l.seen[over:]...)
	}
	close(l.arrived)
	l.arrived = make(chan struct{})
}

// Close stops the proxy and ends the watches open through it.
func (l *WatchLag) Close() {
	select {
	case <-l.done:
		return
	default:
	}
	close(l.done)
	_ = l.server.Close()
	l.wg.Wait()
	l.transport.CloseIdleConnections()
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

// chunk is data the server sent, and when it is due at the client.
type chunk struct {
	data []byte
	due  time.Time
}

// laggingBody hands on the server's bytes each lag after they arrived.
type laggingBody struct {
	src    io.ReadCloser
	chunks chan chunk
	errc   chan error // the source's final error, after its last chunk
	done   <-chan struct{}
	closed chan struct{}
	once   sync.Once
	rest   []byte
}

func (l *WatchLag) delay(src io.ReadCloser) io.ReadCloser {
	b := &laggingBody{src: src, chunks: make(chan chunk, 4096), errc: make(chan error, 1), done: l.done, closed: make(chan struct{})}
	l.wg.Go(func() {
		buf := make([]byte, 32*1024)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				c := chunk{data: append([]byte(nil), buf[:n]...), due: time.Now().Add(time.Duration(l.lag.Load()))}
				l.record(c.data)
				select {
				case b.chunks <- c:
				case <-b.closed:
					return
				}
			}
			if err != nil {
				b.errc <- err
				close(b.chunks)
				return
			}
		}
	})
	return b
}

func (b *laggingBody) Read(p []byte) (int, error) {
	if len(b.rest) == 0 {
		c, ok := <-b.chunks
		if !ok {
			return 0, <-b.errc
		}
		if wait := time.Until(c.due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-b.closed:
				t.Stop()
				return 0, io.ErrClosedPipe
			case <-b.done:
				t.Stop()
				return 0, io.ErrClosedPipe
			}
		}
		b.rest = c.data
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *laggingBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	err := b.src.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
