package http1_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/http1"
)

// hijacked answers every request by writing through write to the raw
// connection, until write returns false or the client hangs up.
func hijacked(write func(w io.Writer, i int) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		for i := 0; write(c, i); i++ {
		}
	}
}

// endless writes a status line and then header fields for ever (up to
// 64 MiB, a bound for the test), or informational responses for ever.
func endless(informational bool) http.HandlerFunc {
	field := "X-Endless: " + strings.Repeat("x", 1000) + "\r\n"
	return hijacked(func(w io.Writer, i int) bool {
		s := field
		switch {
		case informational:
			s = "HTTP/1.1 102 Processing\r\n" + field + "\r\n"
		case i == 0:
			s = "HTTP/1.1 200 OK\r\n"
		}
		_, err := io.WriteString(w, s)
		return err == nil && i < 64<<10
	})
}

// A response's header is bounded as net/http bounds it, to the
// *http.Transport's MaxResponseHeaderBytes or net/http's 10 MiB, and
// informational responses' headers count: a server that sends an endless
// header gets the error net/http gives, naming the bound.
func TestResponseHeaderIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name          string
		max           int64
		informational bool
		want          string
	}{
		{"endless header, the Transport's bound", 64 << 10, false, "exceeded 65536 bytes"},
		{"endless informational responses", 64 << 10, true, "exceeded 65536 bytes"},
		{"endless header, net/http's default", 0, false, "exceeded 10485760 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, endless(tc.informational))
			base := s.Client().Transport.(*http.Transport).Clone()
			base.ForceAttemptHTTP2 = false
			base.MaxResponseHeaderBytes = tc.max
			rt := newTransport(t, base, http1.Options{})
			defer rt.CloseIdleConnections()
			_, err := rt.RoundTrip(request(t, http.MethodGet, s.URL, ""))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
			_, refErr := base.RoundTrip(request(t, http.MethodGet, s.URL, ""))
			if refErr == nil || !strings.HasSuffix(refErr.Error(), err.Error()) { // net/http adds "connection broken: "
				t.Fatalf("err %q; net/http's %v", err, refErr)
			}
			defer base.CloseIdleConnections()
			// The bound is the header's: a body of any size is read whole.
			big := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, strings.Repeat("b", 1<<20))
			})
			base = big.Client().Transport.(*http.Transport).Clone()
			base.MaxResponseHeaderBytes = 1 << 10
			rt = newTransport(t, base, http1.Options{})
			defer rt.CloseIdleConnections()
			if _, got := do(t, rt, request(t, http.MethodGet, big.URL, "")); len(got) != 1<<20 {
				t.Fatalf("a body of 1 MiB under a 1 KiB header bound: read %d bytes", len(got))
			}
		})
	}
}

// A server that never answers fails the request after the
// *http.Transport's ResponseHeaderTimeout, with net/http's error (a
// net.Error that is a timeout); an answer in time is read whole, the
// body after the timeout included.
func TestResponseHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/never":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/slow-body":
			w.WriteHeader(http.StatusOK)
			_ = http.NewResponseController(w).Flush()
			time.Sleep(300 * time.Millisecond)
			_, _ = io.WriteString(w, "late")
		default:
			echo(w, r)
		}
	})
	defer close(release)
	base := s.Client().Transport.(*http.Transport).Clone()
	base.ForceAttemptHTTP2 = false
	base.ResponseHeaderTimeout = 100 * time.Millisecond
	rt := newTransport(t, base, http1.Options{})
	defer rt.CloseIdleConnections()

	start := time.Now()
	_, err := rt.RoundTrip(request(t, http.MethodGet, s.URL+"/never", ""))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, context.DeadlineExceeded) ||
		err.Error() != "net/http: timeout awaiting response headers" {
		t.Fatalf("err %v, want net/http's response header timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the timeout of 100ms took %v", d)
	}
	opened := s.opened.Load()
	if _, got := do(t, rt, request(t, http.MethodGet, s.URL+"/slow-body", "")); got != "late" {
		t.Fatalf("a body slower than the header timeout read %q", got)
	}
	if _, got := do(t, rt, request(t, http.MethodPut, s.URL, "v")); got != "PUT HTTP/1.1 v" {
		t.Fatalf("answered %q", got)
	}
	if n := s.opened.Load(); n != opened+1 {
		t.Fatalf("opened %d connections after the timeout, want 1: the timed out one is closed, the next reused", n-opened)
	}
}
