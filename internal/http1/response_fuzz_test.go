package http1_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/http1"
)

// rawServer answers every request with the bytes of answer, whatever they
// are, and closes the connection.
type rawServer struct {
	ln     net.Listener
	answer atomic.Pointer[[]byte]
	wg     sync.WaitGroup
}

func newRawServer(t testing.TB) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serve(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, req.Body)
	_, _ = c.Write(*s.answer.Load())
}

// response is what a caller sees of a response: its fields, its body
// and the error reading it, or the round trip's error.
type response struct {
	err           error
	status        int
	proto         string
	header        http.Header
	contentLength int64
	uncompressed  bool
	close         bool
	body          []byte
	bodyErr       error
	trailer       http.Header
}

func exchange(rt http.RoundTripper, method, url string) response {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		panic(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	body, bodyErr := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, proto: resp.Proto, header: resp.Header, contentLength: resp.ContentLength,
		uncompressed: resp.Uncompressed, close: resp.Close, body: body, bodyErr: bodyErr, trailer: resp.Trailer}
}

func gzipped(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = io.WriteString(zw, s)
	_ = zw.Close()
	return buf.Bytes()
}

func responseSeeds() [][]byte {
	cm := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"10"},"data":{"k":"v"}}`
	z := gzipped(cm)
	api := "HTTP/1.1 200 OK\r\nAudit-Id: 5c0a\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n" +
		"X-Kubernetes-Pf-Flowschema-Uid: 1\r\nX-Kubernetes-Pf-Prioritylevel-Uid: 2\r\nDate: Mon, 02 Jan 2026 03:04:05 GMT\r\n"
	out := []string{
		api + "Content-Length: " + strconv.Itoa(len(cm)) + "\r\n\r\n" + cm,
		api + "Content-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(z)) + "\r\n\r\n" + string(z),
		api + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(z)), 16) + "\r\n" + string(z) + "\r\n0\r\n\r\n",
		api + "Content-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(z)) + "\r\n\r\n" + string(z[:len(z)/2]), // truncated gzip
		api + "Content-Encoding: gzip\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", // truncated chunk
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",   // malformed chunk size
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",              // truncated body
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabcdef",            // oversized body
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"kind\":\"Status\"}",
		"HTTP/1.0 200 OK\r\n\r\nuntil the end",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\n\r\n",
		"HTTP/1.1 200",              // early close in the status line
		"HTTP/1.1 200 OK\r\nX-A: b", // early close in the header
		"HTTP/1.1 abc OK\r\n\r\n",
		"garbage\r\n\r\n",
		"",
	}
	b := make([][]byte, len(out))
	for i, s := range out {
		b[i] = []byte(s)
	}
	return b
}

// FuzzResponse serves any bytes as the answer to a GET (or HEAD), and
// wants a Transport to give what net/http's gives for them: an error, or
// the same status, header, length, body (decompressed, if gzip), error
// reading the body, and trailer. Deliberately different: a 101 Switching
// Protocols, which a server sends only to a request for an upgrade
// (which the Transport leaves to net/http), has no body (net/http gives
// the connection as one).
func FuzzResponse(f *testing.F) {
	for _, b := range responseSeeds() {
		f.Add(b, false)
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"), true)
	s := newRawServer(f)
	url := "http://" + s.ln.Addr().String() + "/api/v1/namespaces/ns/configmaps/a"
	f.Fuzz(func(t *testing.T, answer []byte, head bool) {
		s.answer.Store(&answer)
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		base := &http.Transport{}
		rt, ok := http1.New(base, http1.Options{})
		if !ok {
			t.Fatal("no Transport")
		}
		defer rt.CloseIdleConnections()
		ref := &http.Transport{}
		defer ref.CloseIdleConnections()
		got, want := exchange(rt, method, url), exchange(ref, method, url)
		if (got.err == nil) != (want.err == nil) {
			t.Fatalf("%q: error %v; net/http's %v", answer, got.err, want.err)
		}
		if got.err != nil {
			return
		}
		if (got.bodyErr == nil) != (want.bodyErr == nil) {
			t.Fatalf("%q: the body's error %v; net/http's %v", answer, got.bodyErr, want.bodyErr)
		}
		if want.status == http.StatusSwitchingProtocols {
			got.body, want.body = nil, nil
		}
		got.err, got.bodyErr, want.err, want.bodyErr = nil, nil, nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", answer, got, want)
		}
	})
}
