package certs_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/certs"
)

// A value that makes no sense is an error of New naming its option.
func TestNewErrors(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	secret := types.NamespacedName{Namespace: "system", Name: "webhook-certs"}
	host := certs.WithHosts("127.0.0.1")
	for _, c := range []struct {
		name   string
		cfg    *rest.Config
		secret types.NamespacedName
		opts   []certs.Option
		want   string
	}{
		{"no hosts", cfg, secret, nil, "WithHosts"},
		{"empty host", cfg, secret, []certs.Option{certs.WithHosts("")}, "WithHosts"},
		{"negative validity", cfg, secret, []certs.Option{host, certs.WithValidity(-time.Hour)}, "WithValidity"},
		{"too short validity", cfg, secret, []certs.Option{host, certs.WithValidity(time.Second)}, "WithValidity"},
		{"empty configuration name", cfg, secret, []certs.Option{host, certs.WithValidatingWebhooks("")}, "WithValidatingWebhooks"},
		{"empty CRD name", cfg, secret, []certs.Option{host, certs.WithCRDs("")}, "WithCRDs"},
		{"no Secret namespace", cfg, types.NamespacedName{Name: "x"}, []certs.Option{host}, "namespace"},
		{"no rest.Config", nil, secret, []certs.Option{host}, "rest.Config"},
		// A client-side throttle that lets nothing through, as client-go's
		// clientset refuses it too.
		{"QPS without a burst", &rest.Config{Host: cfg.Host, QPS: 5}, secret, []certs.Option{host}, "Burst"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := certs.New(c.cfg, c.secret, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "certs: ") {
				t.Fatalf("New: %v, want an error naming %s", err, c.want)
			}
		})
	}
	a, err := certs.New(cfg, secret, host, certs.WithValidity(certs.MinValidity))
	if err != nil {
		t.Fatal(err)
	}
	if a.NeedLeaderElection() {
		t.Fatal("NeedLeaderElection: every replica needs a certificate")
	}
	if _, err := a.GetCertificate(nil); err == nil || !strings.Contains(err.Error(), "system/webhook-certs") {
		t.Fatalf("GetCertificate before Start: %v, want an error naming the Secret", err)
	}
	if a.CABundle() != nil {
		t.Fatal("CABundle before Start is not nil")
	}
}
