package http1

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// captured is a request as a server read it: its bytes parsed back, its
// body, or the error reading it.
type captured struct {
	req  *http.Request
	body []byte
	err  error
}

func parse(raw []byte) captured {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return captured{err: err}
	}
	body, err := io.ReadAll(req.Body)
	return captured{req: req, body: body, err: err}
}

// netHTTPWrite sends req through a net/http Transport to a server at the
// other end of a pipe, and returns the bytes the server read and the
// error of RoundTrip.
func netHTTPWrite(req *http.Request) ([]byte, error) {
	var (
		mu  sync.Mutex
		raw bytes.Buffer
		wg  sync.WaitGroup
	)
	tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		wg.Go(func() {
			defer server.Close()
			r := bufio.NewReader(io.TeeReader(server, lockedWriter{&mu, &raw}))
			got, err := http.ReadRequest(r)
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, got.Body); err != nil {
				return
			}
			_, _ = io.WriteString(server, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
		})
		return client, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := tr.RoundTrip(req.WithContext(ctx))
	if err == nil {
		resp.Body.Close()
	}
	tr.CloseIdleConnections()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return bytes.Clone(raw.Bytes()), err
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var fuzzMethods = []string{"", "GET", "HEAD", "PUT", "POST", "PATCH", "DELETE", "OPTIONS"}

// FuzzWriteRequest writes requests the Transport handles itself with
// writeRequest and with net/http's Transport (Request.Write, after the
// Transport's checks of the header), and wants both to refuse the same
// requests and a server to read the same request from both: method,
// target, Host, header, body, length and Connection: close. Values of one
// field under names that differ in case only (two keys of the Header
// map) may come in another order: net/http writes the keys sorted,
// writeRequest in the map's order.
func FuzzWriteRequest(f *testing.F) {
	f.Add(uint8(1), "https://h:6443/api/v1/namespaces/a/configmaps?limit=500&labelSelector=a%3Db", "", "Authorization", "Bearer x", "Accept", "application/json", "", int8(0), false)
	f.Add(uint8(3), "https://h/api/v1/namespaces/a/configmaps/b", "", "Content-Type", "application/vnd.kubernetes.protobuf", "User-Agent", "steady/v0 (linux/amd64)", "k8s\x00 protobuf", int8(0), false)
	f.Add(uint8(5), "http://h/x", "other:8443", "X-A", " padded\t", "x-a", "lower", "{}", int8(0), true)
	f.Add(uint8(4), "https://h/x", "", "User-Agent", "", "Range", "bytes=0-1", "", int8(0), false)
	f.Add(uint8(3), "https://h/x", "", "Bad Name", "v", "X-Injected", "a\r\nEvil: yes", "body", int8(2), false)
	f.Add(uint8(3), "https://h/x", "", "Host", "evil", "Content-Length", "9", "body", int8(-2), false)
	f.Add(uint8(0), "https://[fe80::1%25en0]:6443/x", "", "Accept-Encoding", "br", "Transfer-Encoding", "chunked", "", int8(0), false)
	f.Add(uint8(1), "https://h/x?a=\x01", "h\"x", "X", "\x7f", "Y", "\x80ok", "", int8(0), false)
	f.Add(uint8(1), "https://h/x", "h\"x", "X", "\x80ok", "Y", "", "", int8(0), false)
	rt, _ := New(&http.Transport{}, Options{})
	f.Fuzz(func(t *testing.T, m uint8, rawURL, host, k1, v1, k2, v2, body string, delta int8, close bool) {
		mk := func() *http.Request {
			var r io.Reader
			if body != "" {
				r = strings.NewReader(body)
			}
			req, err := http.NewRequest(fuzzMethods[int(m)%len(fuzzMethods)], rawURL, r)
			if err != nil {
				return nil
			}
			if body != "" {
				req.ContentLength += int64(delta)
			}
			req.Host, req.Close = host, close
			req.Header[k1] = append(req.Header[k1], v1)
			req.Header[k2] = append(req.Header[k2], v2)
			return req
		}
		req := mk()
		if req == nil || !rt.handles(req) {
			return // net/http's to send
		}
		var buf bytes.Buffer
		err := writeRequest(bufio.NewWriter(&buf), req, rt.gzips(req))
		ref := mk()
		ref.URL.Scheme = "http" // the pipe has no TLS; what is written does not depend on it
		refRaw, refErr := netHTTPWrite(ref)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("%s %s: writeRequest: %v; net/http: %v", req.Method, rawURL, err, refErr)
		}
		if err != nil {
			return
		}
		got, want := parse(buf.Bytes()), parse(refRaw)
		if (got.err == nil) != (want.err == nil) {
			t.Fatalf("%q reads back with %v; net/http's %q with %v", buf.Bytes(), got.err, refRaw, want.err)
		}
		if got.err != nil {
			return
		}
		g, w := got.req, want.req
		if g.Method != w.Method || g.RequestURI != w.RequestURI || g.Host != w.Host || g.ContentLength != w.ContentLength ||
			g.Close != w.Close || !bytes.Equal(got.body, want.body) {
			t.Fatalf("wrote %q\nnet/http %q", buf.Bytes(), refRaw)
		}
		if collide(req.Header) {
			sortValues(g.Header)
			sortValues(w.Header)
		}
		if !reflect.DeepEqual(g.Header, w.Header) {
			t.Fatalf("header %v, net/http's %v", g.Header, w.Header)
		}
	})
}

// collide reports whether two keys of h are the same field name.
func collide(h http.Header) bool {
	seen := map[string]bool{}
	for k := range h {
		c := http.CanonicalHeaderKey(k)
		if seen[c] {
			return true
		}
		seen[c] = true
	}
	return false
}

func sortValues(h http.Header) {
	for _, v := range h {
		slices.Sort(v)
	}
}

// FuzzStreams checks streams against the API server's reading of a URL:
// a request the server would answer with a stream (a watch, a followed
// log) must not be made by the Transport, which reads a whole answer.
func FuzzStreams(f *testing.F) {
	for _, s := range []string{
		"/api/v1/configmaps?watch=true", "/api/v1/configmaps?watch=false&limit=500", "/api/v1/watch/configmaps",
		"/api/v1/namespaces/a/pods/p/log?follow=1", "/api/v1/configmaps?watch", "/api/v1/configmaps?watch=FALSE",
		"/api/v1/configmaps?labelSelector=a%3Db&watch=0", "/api/v1/configmaps?w%61tch=true", "/api/v1/configmaps?a=1;watch=true",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		if serverStreams(u) && !streams(u) {
			t.Fatalf("%s: the server streams, and streams says no", target)
		}
	})
}

// serverStreams reports whether the API server answers u with a stream:
// its query as url.ParseQuery reads it (a pair it cannot read is left
// out), a parameter's first value as apimachinery converts it to a bool.
func serverStreams(u *url.URL) bool {
	if strings.Contains(u.Path, "/watch/") {
		return true
	}
	q := u.Query()
	for _, name := range []string{"watch", "follow"} {
		if v, ok := q[name]; ok && len(v) > 0 && v[0] != "0" && !strings.EqualFold(v[0], "false") {
			return true
		}
	}
	return false
}
