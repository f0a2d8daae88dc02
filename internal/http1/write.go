package http1

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// writeRequest writes req in HTTP/1.1 form to bw, as http.Request.Write
// would for a client's request, with the checks net/http's Transport makes
// first (header names and values, the Host, the URL), and the extra
// header Accept-Encoding: gzip if gz. It closes req's body. Writing the
// header by hand, not through Request.Write, saves its formatting, its
// sorting of the header and a copy of the header for gzip.
func writeRequest(bw *bufio.Writer, req *http.Request, gz bool) (err error) {
	defer func() {
		if cerr := closeBody(req); err == nil {
			err = cerr
		}
	}()
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if !validHost(host) {
		return fmt.Errorf("http: invalid Host header %q", host)
	}
	uri := req.URL.RequestURI()
	if hasControl(uri) {
		return errors.New("net/http: can't write control character in Request.URL")
	}
	if strings.IndexByte(uri, ' ') >= 0 {
		// net/http writes it, and no server can parse the request line.
		return fmt.Errorf("http1: a space in the request target %q", uri)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	for name, values := range req.Header {
		if !validName(name) {
			return fmt.Errorf("net/http: invalid header field name %q", name)
		}
		for _, v := range values {
			if !validValue(v) {
				return fmt.Errorf("net/http: invalid header field value for %q", name)
			}
		}
	}

	bw.WriteString(method)
	bw.WriteByte(' ')
	bw.WriteString(uri)
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	ua := "Go-http-client/1.1"
	if v, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(v) > 0 {
			ua = v[0]
		}
	}
	if ua != "" { // as net/http: a value of spaces is sent, empty
		writeField(bw, "User-Agent", textproto.TrimString(ua))
	}
	if req.Close {
		bw.WriteString("Connection: close\r\n")
	}
	// As net/http: many servers expect a length for these methods, even 0.
	n := req.ContentLength
	if n > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.FormatInt(n, 10))
		bw.WriteString("\r\n")
	}
	for name, values := range req.Header {
		switch name {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		for _, v := range values {
			writeField(bw, name, textproto.TrimString(v))
		}
	}
	if gz {
		bw.WriteString("Accept-Encoding: gzip\r\n")
	}
	bw.WriteString("\r\n")
	if n > 0 {
		if err := copyBody(bw, req.Body, n); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// copyBody copies exactly n bytes of body to bw, and fails if body holds
// fewer or more, as net/http does.
func copyBody(bw *bufio.Writer, body io.Reader, n int64) error {
	if body == nil {
		return fmt.Errorf("http: Request.ContentLength=%d with nil Body", n)
	}
	copied, err := io.CopyN(bw, body, n)
	if err == io.EOF {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", n, copied)
	}
	if err != nil {
		return err
	}
	var extra [1]byte
	if m, _ := body.Read(extra[:]); m > 0 {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", n, n+int64(m))
	}
	return nil
}

func writeField(bw *bufio.Writer, name, value string) {
	bw.WriteString(name)
	bw.WriteString(": ")
	bw.WriteString(value)
	bw.WriteString("\r\n")
}

// validName reports whether name is an HTTP token (RFC 9110, 5.1).
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 || !isToken[c] {
			return false
		}
	}
	return true
}

// validValue reports whether v may be a field value: no control byte but
// the horizontal tab (RFC 9110, 5.5).
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// validHost reports whether host may be sent as the Host header as it
// is: not empty, and of the bytes net/http allows there
// (httpguts.ValidHostHeader; it sends an empty Host for another) but '%',
// which starts an IPv6 zone that net/http cuts out of the header.
func validHost(host string) bool {
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= 0x80 || !isHost[c] {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			return true
		}
	}
	return false
}

// isToken holds the bytes an HTTP token may have.
var isToken = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// isHost holds the bytes validHost allows.
var isHost = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!$&'()*+,-.:;=[]_~" {
		t[c] = true
	}
	return t
}()
