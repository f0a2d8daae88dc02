package manager

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadyctl/steady/webhook"
)

// parseFlags parses args with a fresh FlagSet and returns the options
// Flags.Options makes of them, applied by newOptions.
func parseFlags(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := RegisterFlags(fs, "example.com-lease")
	if err := fs.Parse(args); err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	opts, err := f.Options()
	if err != nil {
		return nil, err
	}
	o, err := newOptions(opts)
	if err != nil {
		t.Fatalf("newOptions of %q: %v", args, err)
	}
	return o, nil
}

func TestFlagsDefaults(t *testing.T) {
	o, err := parseFlags(t)
	if err != nil {
		t.Fatal(err)
	}
	if o.metricsAddr != "" || o.healthAddr != ":8081" || o.leaderElection != nil ||
		o.insecureServing || o.certFile != "" || o.keyFile != "" {
		t.Errorf("defaults: metrics %q, health %q, leader election %v, insecure %v, cert %q, key %q; want no metrics, :8081, none, false, none",
			o.metricsAddr, o.healthAddr, o.leaderElection, o.insecureServing, o.certFile, o.keyFile)
	}
}

func TestFlagsOptions(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "operators")
	o, err := parseFlags(t, "--metrics-bind-address=:8443", "--health-probe-bind-address=0",
		"--leader-elect", "--metrics-cert-path=/certs", "--metrics-cert-key=key.pem")
	if err != nil {
		t.Fatal(err)
	}
	if o.metricsAddr != ":8443" || o.healthAddr != "" {
		t.Errorf("metrics %q, health %q; want :8443 and none", o.metricsAddr, o.healthAddr)
	}
	if le := o.leaderElection; le == nil || le.Name != "example.com-lease" || le.Namespace != "operators" {
		t.Errorf("leader election %+v; want the Lease operators/example.com-lease", le)
	}
	if o.insecureServing {
		t.Error("insecure serving without --metrics-secure=false")
	}
	if want := filepath.Join("/certs", "tls.crt"); o.certFile != want {
		t.Errorf("cert file %q, want %q", o.certFile, want)
	}
	if want := filepath.Join("/certs", "key.pem"); o.keyFile != want {
		t.Errorf("key file %q, want %q", o.keyFile, want)
	}
}

func TestFlagsInsecure(t *testing.T) {
	o, err := parseFlags(t, "--metrics-bind-address=127.0.0.1:8080", "--metrics-secure=false")
	if err != nil {
		t.Fatal(err)
	}
	if !o.insecureServing || o.metricsAddr != "127.0.0.1:8080" {
		t.Errorf("insecure %v, metrics %q; want true, 127.0.0.1:8080", o.insecureServing, o.metricsAddr)
	}
}

func TestFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-cert-path=/certs", "--metrics-secure=false"}, "--metrics-secure=false"},
		{[]string{"--metrics-cert-path=/certs", "--metrics-cert-name="}, "--metrics-cert-name"},
	} {
		if _, err := parseFlags(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %s", tc.args, err, tc.want)
		}
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := RegisterFlags(fs, "")
	if err := fs.Parse([]string{"--leader-elect"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Options(); err == nil || !strings.Contains(err.Error(), "leaseName") {
		t.Errorf("--leader-elect without a lease name: error %v, want one naming leaseName", err)
	}
}

func TestRegisterFlagsCommandLine(t *testing.T) {
	saved := flag.CommandLine
	t.Cleanup(func() { flag.CommandLine = saved })
	flag.CommandLine = flag.NewFlagSet("test", flag.ContinueOnError)
	if RegisterFlags(nil, "lease"); flag.Lookup("metrics-bind-address") == nil {
		t.Error("RegisterFlags(nil, ...) did not register on flag.CommandLine")
	}
}

// kubebuilder's webhook flags reach the webhook server: a missing
// certificate fails its start naming the directory and file they gave.
func TestFlagsWebhook(t *testing.T) {
	dir := t.TempDir()
	o, err := parseFlags(t, "--webhook-cert-path="+dir, "--webhook-cert-name=cert.pem", "--webhook-cert-key=key.pem", "--enable-http2")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.webhook) != 3 {
		t.Fatalf("%d webhook server options, want 3 (directory, names, HTTP/2)", len(o.webhook))
	}
	s, err := webhook.NewServer(append(o.webhook, webhook.WithAddr("127.0.0.1:0"))...)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "cert.pem")) {
		t.Errorf("Start without the flags' files: %v, want an error naming %s", err, filepath.Join(dir, "cert.pem"))
	}
	if o, _ := parseFlags(t); len(o.webhook) != 0 {
		t.Errorf("default flags give %d webhook server options, want none", len(o.webhook))
	}
}
