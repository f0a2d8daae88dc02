package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// written writes req with writeRequest and parses it back as a server
// would.
func written(t *testing.T, req *http.Request, gz bool) (*http.Request, string) {
	t.Helper()
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	if err := writeRequest(bw, req, gz); err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	got, err := http.ReadRequest(bufio.NewReader(&buf))
	if err != nil {
		t.Fatalf("%s %s: the written request does not parse: %v", req.Method, req.URL, err)
	}
	body, err := io.ReadAll(got.Body)
	if err != nil {
		t.Fatal(err)
	}
	return got, string(body)
}

// The request writeRequest writes reads back as the one http.Request.Write
// writes does: method, URI, Host, headers, body and Content-Length.
func TestWriteRequestAsRequestWrite(t *testing.T) {
	for _, tc := range []struct {
		method, url, body string
		header            http.Header
		host              string
		close             bool
	}{
		{method: "GET", url: "https://h:6443/api/v1/namespaces/a/configmaps?limit=500&labelSelector=a%3Db"},
		{method: "PUT", url: "https://h/api/v1/namespaces/a/configmaps/b", body: "\x6b\x38\x73\x00 protobuf",
			header: http.Header{"Content-Type": {"application/vnd.kubernetes.protobuf"}, "Accept": {"a", "b"}, "Authorization": {"Bearer x"}, "User-Agent": {"steady/v0 (linux/amd64)"}}},
		{method: "DELETE", url: "http://h/apis/g/v1/foos/b"},
		{method: "POST", url: "https://h/x", header: http.Header{"User-Agent": {""}}},
		{method: "PATCH", url: "https://h/x", body: "{}", host: "other:8443", close: true},
	} {
		mk := func() *http.Request {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, tc.url, body)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			req.Host, req.Close = tc.host, tc.close
			return req
		}
		got, gotBody := written(t, mk(), false)
		var buf bytes.Buffer
		if err := mk().Write(&buf); err != nil {
			t.Fatal(err)
		}
		want, err := http.ReadRequest(bufio.NewReader(&buf))
		if err != nil {
			t.Fatal(err)
		}
		wantBody, _ := io.ReadAll(want.Body)
		if got.Method != want.Method || got.RequestURI != want.RequestURI || got.Host != want.Host ||
			got.ContentLength != want.ContentLength || got.Close != want.Close || gotBody != string(wantBody) {
			t.Errorf("%s %s: wrote %s %s Host %s length %d close %v body %q; Request.Write: %s %s Host %s length %d close %v body %q",
				tc.method, tc.url, got.Method, got.RequestURI, got.Host, got.ContentLength, got.Close, gotBody,
				want.Method, want.RequestURI, want.Host, want.ContentLength, want.Close, wantBody)
		}
		if !reflect.DeepEqual(got.Header, want.Header) {
			t.Errorf("%s %s: header %v, Request.Write's %v", tc.method, tc.url, got.Header, want.Header)
		}
	}
	req, _ := http.NewRequest("GET", "https://h/x", nil)
	if got, _ := written(t, req, true); got.Header.Get("Accept-Encoding") != "gzip" {
		t.Errorf("asked for gzip: Accept-Encoding %q", got.Header.Get("Accept-Encoding"))
	}
}

// closeCounter is a body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestWriteRequestRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*http.Request)
		want   string
	}{
		{"header name", func(r *http.Request) { r.Header["Bad Name"] = []string{"v"} }, `invalid header field name "Bad Name"`},
		{"header value", func(r *http.Request) { r.Header.Set("X-Injected", "a\r\nEvil: yes") }, `invalid header field value for "X-Injected"`},
		{"short body", func(r *http.Request) { r.ContentLength = 10 }, "ContentLength=10 with Body length 4"},
		{"long body", func(r *http.Request) { r.ContentLength = 2 }, "ContentLength=2 with Body length 3"},
		{"control in URL", func(r *http.Request) { r.URL.RawQuery = "a=\x01" }, "control character"},
	} {
		body := &closeCounter{Reader: strings.NewReader("body")}
		req, err := http.NewRequest("PUT", "https://h/x", body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = 4
		tc.modify(req)
		var buf bytes.Buffer
		err = writeRequest(bufio.NewWriter(&buf), req, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.want)
		}
		if body.closed != 1 {
			t.Errorf("%s: the body was closed %d times, want once", tc.name, body.closed)
		}
	}
}
