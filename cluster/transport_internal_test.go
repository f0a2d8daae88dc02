package cluster

import (
	"context"
	"net"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/http1"
)

func TestTransportConfig(t *testing.T) {
	ownDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	for _, tc := range []struct {
		name      string
		cfg       rest.Config
		http2     bool
		slow      bool // WithFastPaths(false)
		wantProto []string
		wantDial  string // "keepalive", "own" or "none"
		wantPool  int    // MaxIdleConnsPerHost after WrapTransport; 0: not wrapped
		wantHTTP1 bool   // WrapTransport puts an http1.Transport on top
	}{
		{name: "default", wantProto: []string{"http/1.1"}, wantDial: "keepalive", wantPool: idleConnections, wantHTTP1: true},
		{name: "WithHTTP2", http2: true, wantDial: "none"},
		{name: "NextProtos h2", cfg: rest.Config{TLSClientConfig: rest.TLSClientConfig{NextProtos: []string{"h2", "http/1.1"}}}, wantProto: []string{"h2", "http/1.1"}, wantDial: "none"},
		// A config that asks for HTTP/1.1 itself gets the same care.
		{name: "NextProtos http/1.1", cfg: rest.Config{TLSClientConfig: rest.TLSClientConfig{NextProtos: []string{"http/1.1"}}}, wantProto: []string{"http/1.1"}, wantDial: "keepalive", wantPool: idleConnections, wantHTTP1: true},
		{name: "own Transport", cfg: rest.Config{Transport: http.DefaultTransport}, wantDial: "none"},
		{name: "own Dial", cfg: rest.Config{Dial: ownDial}, wantProto: []string{"http/1.1"}, wantDial: "own", wantPool: idleConnections, wantHTTP1: true},
		// Without fast paths, HTTP/1.1 connections keep the keepalive
		// dialer and the pool, on net/http's transport alone.
		{name: "WithFastPaths(false)", slow: true, wantProto: []string{"http/1.1"}, wantDial: "keepalive", wantPool: idleConnections},
		{name: "WithFastPaths(false), own Dial", slow: true, cfg: rest.Config{Dial: ownDial}, wantProto: []string{"http/1.1"}, wantDial: "own", wantPool: idleConnections},
		{name: "WithFastPaths(false), WithHTTP2", slow: true, http2: true, wantDial: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rest.CopyConfig(&tc.cfg)
			got := transportConfig(in, tc.http2, !tc.slow)
			if !reflect.DeepEqual(in.NextProtos, tc.cfg.NextProtos) || (in.Dial == nil) != (tc.cfg.Dial == nil) || in.WrapTransport != nil {
				t.Fatal("transportConfig changed the config it was given")
			}
			if !slices.Equal(got.NextProtos, tc.wantProto) {
				t.Errorf("NextProtos %v, want %v", got.NextProtos, tc.wantProto)
			}
			switch {
			case tc.wantDial == "none" && got.Dial != nil:
				t.Error("a Dial was set")
			case tc.wantDial == "own" && reflect.ValueOf(got.Dial).Pointer() != reflect.ValueOf(ownDial).Pointer():
				t.Error("the config's own Dial was replaced")
			case tc.wantDial == "keepalive" && got.Dial == nil:
				t.Error("no keepalive dialer")
			}
			tr := &http.Transport{MaxIdleConnsPerHost: 25, IdleConnTimeout: 90 * time.Second}
			var rt http.RoundTripper = tr
			if got.WrapTransport != nil {
				rt = got.WrapTransport(tr)
			}
			if _, layered := rt.(*http1.Transport); layered != tc.wantHTTP1 {
				t.Errorf("WrapTransport returned a %T, want an http1.Transport: %v", rt, tc.wantHTTP1)
			}
			if !tc.wantHTTP1 && rt != tr {
				t.Errorf("WrapTransport returned a %T, want client-go's transport as it was", rt)
			}
			want := tc.wantPool
			if want == 0 {
				want = 25
			}
			if tr.MaxIdleConnsPerHost != want {
				t.Errorf("MaxIdleConnsPerHost %d, want %d", tr.MaxIdleConnsPerHost, want)
			}
			wantIdle := 90 * time.Second
			if tc.wantPool != 0 {
				wantIdle = idleTimeout
			}
			if tr.IdleConnTimeout != wantIdle {
				t.Errorf("IdleConnTimeout %v, want %v", tr.IdleConnTimeout, wantIdle)
			}
		})
	}
}
