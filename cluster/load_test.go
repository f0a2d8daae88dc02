package cluster

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"
)

// machine is a temporary home directory and service account directory, with
// the environment cleared of the variables LoadConfig reads. t.Setenv
// forbids t.Parallel, so these tests run one at a time.
type machine struct {
	t        *testing.T
	home, sa string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	for _, v := range []string{"KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"} {
		t.Setenv(v, "")
	}
	return &machine{t: t, home: t.TempDir(), sa: t.TempDir()}
}

// load runs Load on the machine's files.
func (m *machine) load(opts ...LoadOption) (Loaded, error) {
	return Load(append([]LoadOption{func(o *loadOptions) {
		o.inClusterDir = m.sa
		o.home = func() (string, error) { return m.home, nil }
	}}, opts...)...)
}

// kubeconfig writes a kubeconfig file at path with one context per server
// name, each reaching https://<name>.example; current is its
// current-context.
func (m *machine) kubeconfig(path, current string, names ...string) string {
	m.t.Helper()
	cfg := clientcmdapi.NewConfig()
	for _, n := range names {
		cfg.Clusters[n] = &clientcmdapi.Cluster{Server: "https://" + n + ".example"}
		cfg.AuthInfos[n] = &clientcmdapi.AuthInfo{Token: "token-" + n}
		cfg.Contexts[n] = &clientcmdapi.Context{Cluster: n, AuthInfo: n}
	}
	cfg.CurrentContext = current
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		m.t.Fatal(err)
	}
	return path
}

// homeConfig writes ~/.kube/config.
func (m *machine) homeConfig(current string, names ...string) string {
	return m.kubeconfig(filepath.Join(m.home, ".kube", "config"), current, names...)
}

// inCluster makes the machine look like a pod: the service's address in
// the environment, a token and a CA in the service account directory.
func (m *machine) inCluster() {
	m.t.Helper()
	m.t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	m.t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	ca, _, err := certutil.GenerateSelfSignedCertKey("kubernetes", nil, nil)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.sa, "ca.crt"), ca, 0o600); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.sa, "token"), []byte("pod-token"), 0o600); err != nil {
		m.t.Fatal(err)
	}
}

func TestLoadOrder(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	m.inCluster()
	env := m.kubeconfig(filepath.Join(t.TempDir(), "env"), "env", "env")
	t.Setenv("KUBECONFIG", env)
	flagged := m.kubeconfig(filepath.Join(t.TempDir(), "flag"), "flag", "flag")

	// Each step takes away the source the previous one used.
	for _, step := range []struct {
		opts     []LoadOption
		takeAway func()
		source   Source
		host     string
	}{
		{[]LoadOption{WithKubeconfig(flagged)}, func() {}, SourceFlag, "https://flag.example"},
		{nil, func() { t.Setenv("KUBECONFIG", "") }, SourceEnv, "https://env.example"},
		{nil, func() { t.Setenv("KUBERNETES_SERVICE_HOST", "") }, SourceInCluster, "https://10.96.0.1:443"},
		{nil, func() {}, SourceHome, "https://home.example"},
	} {
		l, err := m.load(step.opts...)
		if err != nil {
			t.Fatalf("want %s: %v", step.source, err)
		}
		if l.Source != step.source || l.Config.Host != step.host {
			t.Fatalf("loaded %s (host %s), want %s (host %s)", l, l.Config.Host, step.source, step.host)
		}
		step.takeAway()
	}
}

func TestLoadKubeconfigListMergesAsKubectl(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	dir := t.TempDir()
	first := m.kubeconfig(filepath.Join(dir, "first"), "a", "a")
	second := m.kubeconfig(filepath.Join(dir, "second"), "b", "a", "b")
	missing := filepath.Join(dir, "missing")
	t.Setenv("KUBECONFIG", strings.Join([]string{missing, first, second}, string(filepath.ListSeparator)))

	l, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	// The first file to set current-context wins; the second file's
	// contexts are there to be chosen.
	if l.Source != SourceEnv || l.Context != "a" || l.Config.Host != "https://a.example" {
		t.Fatalf("loaded %s, host %s; want $KUBECONFIG, context a", l, l.Config.Host)
	}
	if want := []string{first, second}; strings.Join(l.Paths, ",") != strings.Join(want, ",") {
		t.Fatalf("paths %v, want %v (the missing file skipped)", l.Paths, want)
	}
	l, err = m.load(WithKubeconfigContext("b"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Context != "b" || l.Config.Host != "https://b.example" || l.Config.BearerToken != "token-b" {
		t.Fatalf("with context b: loaded %s, host %s, token %q", l, l.Config.Host, l.Config.BearerToken)
	}
}

func TestLoadContextOverride(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("dev", "dev", "prod")
	l, err := m.load(WithKubeconfigContext("prod"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Context != "prod" || l.Config.Host != "https://prod.example" {
		t.Fatalf("loaded %s, host %s; want context prod", l, l.Config.Host)
	}
	_, err = m.load(WithKubeconfigContext("staging"))
	if err == nil || !strings.Contains(err.Error(), "~/.kube/config") || !strings.Contains(err.Error(), "staging") {
		t.Fatalf("unknown context: %v, want an error naming the source and the context", err)
	}
}

func TestLoadFlags(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	path := m.kubeconfig(filepath.Join(t.TempDir(), "flag"), "a", "a", "b")
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	flags := RegisterFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig", path, "--context", "b"}); err != nil {
		t.Fatal(err)
	}
	l, err := m.load(flags)
	if err != nil {
		t.Fatal(err)
	}
	if l.Source != SourceFlag || l.Context != "b" || l.Config.Host != "https://b.example" {
		t.Fatalf("loaded %s, host %s; want the flag's file and context", l, l.Config.Host)
	}
}

func TestLoadInCluster(t *testing.T) {
	m := newMachine(t)
	m.inCluster()
	l, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if l.Source != SourceInCluster || c.Host != "https://10.96.0.1:443" || c.BearerToken != "pod-token" ||
		c.BearerTokenFile != filepath.Join(m.sa, "token") || c.CAFile != filepath.Join(m.sa, "ca.crt") {
		t.Fatalf("loaded %s: host %s, token %q from %s, CA %s", l, c.Host, c.BearerToken, c.BearerTokenFile, c.CAFile)
	}
	if _, err := m.load(WithKubeconfigContext("x")); err == nil || !strings.Contains(err.Error(), "in-cluster") {
		t.Fatalf("in-cluster with a context: %v, want an error", err)
	}

	// A pod without a mounted token is not in-cluster: the next source is
	// tried.
	if err := os.Remove(filepath.Join(m.sa, "token")); err != nil {
		t.Fatal(err)
	}
	m.homeConfig("home", "home")
	if l, err := m.load(); err != nil || l.Source != SourceHome {
		t.Fatalf("no token: loaded %s, %v; want ~/.kube/config", l, err)
	}

	// A token without its CA is a broken pod, not a reason to go elsewhere.
	m.inCluster()
	if err := os.Remove(filepath.Join(m.sa, "ca.crt")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.load(); err == nil || !strings.Contains(err.Error(), "in-cluster") || !strings.Contains(err.Error(), "ca.crt") {
		t.Fatalf("no CA: %v, want an error naming in-cluster and the CA file", err)
	}
}

func TestLoadNoSource(t *testing.T) {
	m := newMachine(t)
	_, err := m.load()
	if !errors.Is(err, ErrNoConfig) {
		t.Fatalf("got %v, want ErrNoConfig", err)
	}
	for _, why := range []string{
		"--kubeconfig: not given",
		"$KUBECONFIG: not set",
		"in-cluster: KUBERNETES_SERVICE_HOST",
		"~/.kube/config: " + filepath.Join(m.home, ".kube", "config") + " does not exist",
	} {
		if !strings.Contains(err.Error(), why) {
			t.Errorf("error %q lacks %q", err, why)
		}
	}
}

// A source that is present but fails stops the search: falling through
// would talk to another cluster than the one asked for.
func TestLoadBrokenSourceIsAnError(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	missing := filepath.Join(t.TempDir(), "nope")

	_, err := m.load(WithKubeconfig(missing))
	if err == nil || errors.Is(err, ErrNoConfig) || !strings.Contains(err.Error(), "--kubeconfig ("+missing+")") {
		t.Fatalf("missing --kubeconfig file: %v, want an error naming it", err)
	}
	t.Setenv("KUBECONFIG", missing)
	_, err = m.load()
	if err == nil || errors.Is(err, ErrNoConfig) || !strings.Contains(err.Error(), "$KUBECONFIG ("+missing+"): none of its files exists") ||
		!strings.Contains(err.Error(), "skipped before it: --kubeconfig: not given") {
		t.Fatalf("KUBECONFIG of missing files: %v, want an error naming it", err)
	}
}

func TestLoadThrottle(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	for _, tc := range []struct {
		opts []LoadOption
		want Throttle
	}{
		{nil, DefaultThrottle},
		{[]LoadOption{WithThrottle(ClientGoThrottle)}, Throttle{QPS: 5, Burst: 10}},
		{[]LoadOption{WithThrottle(NoThrottle)}, Throttle{QPS: -1}},
	} {
		l, err := m.load(tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := ThrottleOf(l.Config); !ok || got != tc.want || l.Config.QPS != tc.want.QPS {
			t.Errorf("throttle %v (QPS %g), want %v", got, l.Config.QPS, tc.want)
		}
	}
	for _, bad := range []Throttle{{}, {QPS: 10}} {
		if _, err := m.load(WithThrottle(bad)); err == nil || !strings.Contains(err.Error(), "WithThrottle") {
			t.Errorf("WithThrottle(%+v): %v, want an error naming the option", bad, err)
		}
	}
}

// WithSources leaves out the sources a tool must not use unasked: with the
// home file left out, a machine that has only ~/.kube/config has no config.
func TestLoadWithSources(t *testing.T) {
	m := newMachine(t)
	m.homeConfig("home", "home")
	t.Setenv("KUBECONFIG", "")
	if l, err := m.load(); err != nil || l.Source != SourceHome {
		t.Fatalf("all sources: %v (%v), want %s", l, err, SourceHome)
	}
	_, err := m.load(WithSources(SourceFlag, SourceEnv, SourceInCluster))
	if !errors.Is(err, ErrNoConfig) || strings.Contains(err.Error(), string(SourceHome)) {
		t.Fatalf("without %s: %v, want ErrNoConfig not mentioning it", SourceHome, err)
	}
	flagged := m.kubeconfig(filepath.Join(t.TempDir(), "flag"), "flag", "flag")
	if l, err := m.load(WithSources(SourceFlag), WithKubeconfig(flagged)); err != nil || l.Source != SourceFlag {
		t.Fatalf("flag only: %v (%v)", l, err)
	}
	if _, err := m.load(WithSources("~/elsewhere")); err == nil || !strings.Contains(err.Error(), "~/elsewhere") {
		t.Fatalf("an unknown source: %v", err)
	}
}
