package e2e

import (
	"slices"
	"testing"

	"k8s.io/client-go/rest"
)

func TestSetProtocol(t *testing.T) {
	for _, tc := range []struct {
		p, name string
		want    []string
	}{
		{"default", "", nil},
		{"http1", "HTTP/1.1", []string{"http/1.1"}},
		{"http2", "HTTP/2", []string{"h2", "http/1.1"}},
	} {
		if got := ProtocolName(tc.p); got != tc.name {
			t.Errorf("ProtocolName(%q) = %q, want %q", tc.p, got, tc.name)
		}
		if !ValidProtocol(tc.p) {
			t.Errorf("ValidProtocol(%q) = false", tc.p)
		}
		cfg := &rest.Config{}
		SetProtocol(cfg, tc.p)
		if !slices.Equal(cfg.NextProtos, tc.want) {
			t.Errorf("%s: NextProtos %v, want %v", tc.p, cfg.NextProtos, tc.want)
		}
	}
	if ValidProtocol("h3") {
		t.Error(`ValidProtocol("h3") = true`)
	}
}
