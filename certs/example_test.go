package certs_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/certs"
)

// Before Start has read the Secret and checked the configurations, Ready
// says what is missing: a readiness probe keeps the replica out of the
// Service until the API server can call it.
func ExampleAuthority_Ready() {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	a, err := certs.New(cfg, types.NamespacedName{Namespace: "system", Name: "webhook-certs"},
		certs.WithHosts("127.0.0.1"),
		certs.WithValidatingWebhooks("my-operator-validating"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Ready())
	// Output:
	// certs: no serving certificate loaded from Secret system/webhook-certs yet
	// certs: ValidatingWebhookConfiguration my-operator-validating not checked yet
}

// An operator's webhook server presenting the Authority's certificate.
// The webhook package does this with webhook.WithCertificate, and the
// manager runs the Authority and puts Ready on /readyz.
func Example() {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	a, err := certs.New(cfg, types.NamespacedName{Namespace: "system", Name: "webhook-certs"},
		certs.WithHosts("webhook", "webhook.system", "webhook.system.svc", "webhook.system.svc.cluster.local"),
		certs.WithValidatingWebhooks("my-operator-validating"),
		certs.WithMutatingWebhooks("my-operator-mutating"),
		certs.WithCRDs("widgets.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := a.Start(context.Background()); err != nil {
			log.Fatal(err)
		}
	}()
	http.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := a.Ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		}
	})
	srv := &http.Server{
		Addr:              ":9443",
		TLSConfig:         &tls.Config{GetCertificate: a.GetCertificate, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	log.Fatal(srv.ListenAndServeTLS("", ""))
}
