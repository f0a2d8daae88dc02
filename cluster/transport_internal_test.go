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
)

func TestTransportConfig(t *testing.T) {
	ownDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	for _, tc := range []struct {
		name      string
		cfg       rest.Config
		http2     bool
		wantProto []string
		wantDial  string // "keepalive", "own" or "none"
		wantPool  int    // MaxIdleConnsPerHost after WrapTransport; 0: not wrapped
	}{
		{name: "default", wantProto: []string{"http/1.1"}, wantDial: "keepalive", wantPool: idleConnections},
		{name: "WithHTTP2", http2: true, wantDial: "none"},
		{name: "NextProtos h2", cfg: rest.Config{TLSClientConfig: rest.TLSClientConfig{NextProtos: []string{"h2", "http/1.1"}}}, wantProto: []string{"h2", "http/1.1"}, wantDial: "none"},
		// A config that asks for HTTP/1.1 itself gets the same care.
		{name: "NextProtos http/1.1", cfg: rest.Config{TLSClientConfig: rest.TLSClientConfig{NextProtos: []string{"http/1.1"}}}, wantProto: []string{"http/1.1"}, wantDial: "keepalive", wantPool: idleConnections},
		{name: "own Transport", cfg: rest.Config{Transport: http.DefaultTransport}, wantDial: "none"},
		{name: "own Dial", cfg: rest.Config{Dial: ownDial}, wantProto: []string{"http/1.1"}, wantDial: "own", wantPool: idleConnections},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rest.CopyConfig(&tc.cfg)
			got := transportConfig(in, tc.http2, true)
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
			if got.WrapTransport != nil {
				got.WrapTransport(tr)
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
