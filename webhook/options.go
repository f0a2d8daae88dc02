package webhook

import (
	"crypto/tls"
	"time"

	"github.com/go-logr/logr"
)

// Option configures a Server.
type Option func(*options)

type options struct {
	addr            string
	certDir         string
	certName        string
	keyName         string
	getCertificate  func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	maxBodyBytes    int64
	http2           bool
	shutdownTimeout time.Duration
	log             logr.Logger
	metrics         Metrics
}

// DefaultCertDir is where a Server looks for tls.crt and tls.key without
// WithCertDir: controller-runtime's default, so kubebuilder's manifests,
// which mount cert-manager's Secret there, carry over.
const DefaultCertDir = "/tmp/k8s-webhook-server/serving-certs"

// WithAddr sets the address the server listens on, ":9443" by default
// (controller-runtime's port, which kubebuilder's Service targets).
func WithAddr(addr string) Option { return func(o *options) { o.addr = addr } }

// WithCertDir sets the directory holding the serving certificate and its
// key (see WithCertNames), DefaultCertDir by default. The files are read at
// Start and again whenever they change (a mounted Secret that
// cert-manager renews), without a restart.
func WithCertDir(dir string) Option { return func(o *options) { o.certDir = dir } }

// WithCertNames sets the file names of the certificate and its key in
// the certificate directory, "tls.crt" and "tls.key" by default
// (kubebuilder's --webhook-cert-name and --webhook-cert-key).
func WithCertNames(certName, keyName string) Option {
	return func(o *options) { o.certName, o.keyName = certName, keyName }
}

// WithCertificate makes the server present the certificate get returns
// instead of reading files: certs.Authority.GetCertificate, for
// certificates the operator manages itself. It is asked at every TLS
// handshake.
func WithCertificate(get func(*tls.ClientHelloInfo) (*tls.Certificate, error)) Option {
	return func(o *options) { o.getCertificate = get }
}

// WithMaxBodyBytes bounds a request's body, 7 MiB by default: an update's
// review carries the object twice, and the API server admits objects up
// to 3 MiB. A larger body is answered 413 without being read.
func WithMaxBodyBytes(n int64) Option { return func(o *options) { o.maxBodyBytes = n } }

// WithHTTP2 lets the server speak HTTP/2 to the API server; off by
// default, as in kubebuilder's scaffold, which turns it off because of
// HTTP/2's stream-reset attacks (CVE-2023-44487). It concerns this
// server only; the manager's WithHTTP2 is about its connections to the
// API server.
func WithHTTP2(on bool) Option { return func(o *options) { o.http2 = on } }

// WithShutdownTimeout bounds how long Start waits, once its context is
// done, for requests in flight to be answered; 10s by default, the API
// server's default webhook timeout.
func WithShutdownTimeout(d time.Duration) Option { return func(o *options) { o.shutdownTimeout = d } }

// WithLogger sets where the server logs; nothing is logged by default.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithMetrics records every request in m; metrics.Webhook records them
// under controller-runtime's names. The manager passes its own.
func WithMetrics(m Metrics) Option { return func(o *options) { o.metrics = m } }

// Metrics is what a Server reports per request, labelled by the path of
// the webhook that served it.
type Metrics interface {
	// Begin is called when a request for webhook starts.
	Begin(webhook string)
	// End is called when it has been answered with code after took.
	End(webhook string, code int, took time.Duration)
}

func newOptions(opts []Option) *options {
	o := &options{addr: ":9443", certDir: DefaultCertDir, certName: "tls.crt", keyName: "tls.key", maxBodyBytes: 7 << 20,
		shutdownTimeout: 10 * time.Second, log: logr.Discard()}
	for _, opt := range opts {
		opt(o)
	}
	return o
}
