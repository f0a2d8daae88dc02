package manager_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
)

// Metrics and pprof are served over HTTPS to requests the API server
// authenticates and authorizes; the probes stay open, over plain HTTP.
func TestProtectedEndpoints(t *testing.T) {
	ns := testkit.Namespace(t, "secure-")
	ctx, cs := context.Background(), testkit.Clientset(t)
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "nobody", &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nobody, admin := tr.Status.Token, testkit.Env(t).Config.BearerToken

	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns),
		manager.WithMetricsAddr("127.0.0.1:0"), manager.WithPprofAddr("127.0.0.1:0"), manager.WithHealthAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	<-m.Elected() // the listeners are open
	metrics, pprof := "https://"+m.MetricsAddr()+"/metrics", "https://"+m.PprofAddr()+"/debug/pprof/heap?debug=1"
	for _, tc := range []struct {
		name, url, token string
		status           int
		body             string
	}{
		{"metrics, allowed", metrics, admin, http.StatusOK, "go_goroutines"},
		{"pprof, allowed", pprof, admin, http.StatusOK, "heap profile"},
		{"metrics, no token", metrics, "", http.StatusUnauthorized, "Unauthorized"},
		{"pprof, no token", pprof, "", http.StatusUnauthorized, "Unauthorized"},
		{"metrics, forged token", metrics, "forged", http.StatusUnauthorized, "Unauthorized"},
		{"metrics, not allowed", metrics, nobody, http.StatusForbidden, `cannot get path "/metrics"`},
		{"pprof, not allowed", pprof, nobody, http.StatusForbidden, `cannot get path "/debug/pprof/heap"`},
		{"readyz, open", "http://" + m.HealthAddr() + "/healthz", "", http.StatusOK, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, body := getWithToken(t, tc.url, tc.token); code != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("GET %s: %d %.200q, want %d with %q", tc.url, code, body, tc.status, tc.body)
			}
		})
	}
	if code, _ := getWithToken(t, "http://"+m.MetricsAddr()+"/metrics", admin); code != http.StatusBadRequest {
		t.Fatalf("plain HTTP to the metrics port: %d, want 400 (the server speaks TLS only)", code)
	}
}

// A missing certificate fails Start, whenever serving is secure: by
// default, and with WithInsecureServing(false), which keeps the default
// even after WithInsecureServing(true).
func TestMissingServingCertificateFailsStart(t *testing.T) {
	for name, opts := range map[string][]manager.Option{
		"default":                    nil,
		"WithInsecureServing(false)": {manager.WithInsecureServing(false)},
		"the last switch wins":       {manager.WithInsecureServing(true), manager.WithInsecureServing(false)},
	} {
		t.Run(name, func(t *testing.T) {
			missing := filepath.Join(t.TempDir(), "tls.crt")
			m, err := manager.New(noServer, append([]manager.Option{manager.WithMetricsAddr("127.0.0.1:0"),
				manager.WithServingCertificate(missing, filepath.Join(t.TempDir(), "tls.key"))}, opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // Start fails at once, unless serving is insecure
			defer cancel()
			if err := m.Start(ctx); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "WithMetricsAddr") {
				t.Fatalf("Start with a missing certificate: %v, want an error naming the file", err)
			}
		})
	}
}
