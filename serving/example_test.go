package serving_test

import (
	"log"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/serving"
)

// Protecting a metrics endpoint by hand; manager.New does this for its
// own metrics and pprof servers.
func Example() {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	api, err := serving.NewReviewer(cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	filter, err := serving.NewFilter(api)
	if err != nil {
		log.Fatal(err)
	}
	// The files of a mounted Secret that cert-manager rotates.
	cert, err := serving.LoadCertificate("/tmp/k8s-metrics-server/serving-certs/tls.crt",
		"/tmp/k8s-metrics-server/serving-certs/tls.key")
	if err != nil {
		log.Fatal(err)
	}
	tlsConfig, err := serving.TLSConfig(cert, "")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.Handler())
	srv := &http.Server{Addr: ":8443", Handler: filter.Wrap(mux), TLSConfig: tlsConfig, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServeTLS("", ""))
}
