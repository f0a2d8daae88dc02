package manager

import (
	"errors"
	"flag"
	"path/filepath"

	"github.com/steadyctl/steady/webhook"
)

// Flags are the command-line flags of a kubebuilder scaffold's main.go,
// with its names and defaults, so that the main.go and the deployment
// manifests that pass these flags carry over; Options turns them into
// manager options:
//
//	--metrics-bind-address       WithMetricsAddr; default "0", which (as "") serves no metrics
//	--health-probe-bind-address  WithHealthAddr; default ":8081", "0" serves no probes
//	--leader-elect               WithLeaderElection(LeaderElection{Name: LeaderElectionID}); default false
//	--metrics-secure             false gives WithInsecureServing(true); default true
//	--metrics-cert-path          with it, WithServingCertificate of the two files below in that directory
//	--metrics-cert-name          the certificate's file name; default "tls.crt"
//	--metrics-cert-key           the key's file name; default "tls.key"
//	--webhook-cert-path          with it, WithWebhookServer(webhook.WithCertDir(path)); default webhook.DefaultCertDir
//	--webhook-cert-name          the certificate's file name; default "tls.crt"
//	--webhook-cert-key           the key's file name; default "tls.key"
//	--enable-http2               WithWebhookServer(webhook.WithHTTP2(true)); default false
//
// The Lease's namespace is the pod's (see LeaderElection). As in
// kubebuilder, --enable-http2 concerns the servers the operator runs: the
// webhook server (the metrics server speaks HTTP/1.1 only); connections
// to the API server are WithAPIServerHTTP2's.
type Flags struct {
	MetricsAddr, HealthAddr string
	LeaderElect             bool
	// LeaderElectionID names the Lease; it is not a flag but
	// RegisterFlags's leaseName, as it is a constant of kubebuilder's
	// main.go.
	LeaderElectionID string
	MetricsSecure    bool
	// MetricsCertPath is the directory of the serving certificate,
	// MetricsCertName and MetricsCertKey its files' names in it.
	MetricsCertPath, MetricsCertName, MetricsCertKey string
	// WebhookCertPath is the directory of the webhook server's
	// certificate, WebhookCertName and WebhookCertKey its files' names.
	WebhookCertPath, WebhookCertName, WebhookCertKey string
	// EnableHTTP2 lets the webhook server speak HTTP/2.
	EnableHTTP2 bool
}

// RegisterFlags registers kubebuilder's main.go flags (see Flags) on fs,
// flag.CommandLine when fs is nil, and returns the Flags they set when fs
// is parsed. leaseName names the Lease of --leader-elect.
func RegisterFlags(fs *flag.FlagSet, leaseName string) *Flags {
	if fs == nil {
		fs = flag.CommandLine
	}
	f := &Flags{LeaderElectionID: leaseName}
	fs.StringVar(&f.MetricsAddr, "metrics-bind-address", "0",
		`The address the metrics endpoint binds to, e.g. ":8443"; "0" disables it.`)
	fs.StringVar(&f.HealthAddr, "health-probe-bind-address", ":8081",
		`The address the health probe endpoint binds to; "0" disables it.`)
	fs.BoolVar(&f.LeaderElect, "leader-elect", false,
		"Enable leader election, so that only one replica runs the controllers.")
	fs.BoolVar(&f.MetricsSecure, "metrics-secure", true,
		"Serve metrics over HTTPS to clients the API server authenticates and authorizes; false serves plain HTTP to anyone.")
	fs.StringVar(&f.MetricsCertPath, "metrics-cert-path", "",
		"The directory of the metrics server's certificate; default a self-signed one.")
	fs.StringVar(&f.MetricsCertName, "metrics-cert-name", "tls.crt",
		"The file name of the metrics server's certificate in --metrics-cert-path.")
	fs.StringVar(&f.MetricsCertKey, "metrics-cert-key", "tls.key",
		"The file name of the metrics server's key in --metrics-cert-path.")
	fs.StringVar(&f.WebhookCertPath, "webhook-cert-path", "",
		"The directory of the webhook server's certificate; default "+webhook.DefaultCertDir+".")
	fs.StringVar(&f.WebhookCertName, "webhook-cert-name", "tls.crt",
		"The file name of the webhook server's certificate in --webhook-cert-path.")
	fs.StringVar(&f.WebhookCertKey, "webhook-cert-key", "tls.key",
		"The file name of the webhook server's key in --webhook-cert-path.")
	fs.BoolVar(&f.EnableHTTP2, "enable-http2", false,
		"Let the webhook server speak HTTP/2; off because of HTTP/2's stream-reset attacks.")
	return f
}

// Options returns the manager options the flags say (see Flags). It is an
// error, naming the flags, to give --metrics-cert-path with
// --metrics-secure=false (a certificate plain HTTP would not use), or with
// an empty --metrics-cert-name or --metrics-cert-key, and to give
// --leader-elect with an empty LeaderElectionID.
func (f *Flags) Options() ([]Option, error) {
	var opts []Option
	if f.MetricsAddr != "0" && f.MetricsAddr != "" {
		opts = append(opts, WithMetricsAddr(f.MetricsAddr))
	}
	if f.HealthAddr != "0" && f.HealthAddr != "" {
		opts = append(opts, WithHealthAddr(f.HealthAddr))
	}
	if f.LeaderElect {
		if f.LeaderElectionID == "" {
			return nil, errors.New("manager: --leader-elect: RegisterFlags's leaseName (the Lease's name) is empty")
		}
		opts = append(opts, WithLeaderElection(LeaderElection{Name: f.LeaderElectionID}))
	}
	if !f.MetricsSecure {
		opts = append(opts, WithInsecureServing(true))
	}
	if f.MetricsCertPath != "" {
		switch {
		case !f.MetricsSecure:
			return nil, errors.New("manager: --metrics-cert-path with --metrics-secure=false: plain HTTP serves no certificate")
		case f.MetricsCertName == "" || f.MetricsCertKey == "":
			return nil, errors.New("manager: --metrics-cert-path with an empty --metrics-cert-name or --metrics-cert-key")
		}
		opts = append(opts, WithServingCertificate(
			filepath.Join(f.MetricsCertPath, f.MetricsCertName),
			filepath.Join(f.MetricsCertPath, f.MetricsCertKey)))
	}
	var wh []webhook.Option
	if f.WebhookCertPath != "" {
		wh = append(wh, webhook.WithCertDir(f.WebhookCertPath))
	}
	if f.WebhookCertName != "tls.crt" || f.WebhookCertKey != "tls.key" {
		wh = append(wh, webhook.WithCertNames(f.WebhookCertName, f.WebhookCertKey))
	}
	if f.EnableHTTP2 {
		wh = append(wh, webhook.WithHTTP2(true))
	}
	if len(wh) > 0 {
		opts = append(opts, WithWebhookServer(wh...))
	}
	return opts, nil
}
