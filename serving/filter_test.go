package serving_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/serving"
)

// reviewCounter counts the TokenReviews and SubjectAccessReviews made
// through a rest.Config.
type reviewCounter struct {
	tokens, access atomic.Int32
	next           http.RoundTripper
}

func (c *reviewCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/tokenreviews"):
		c.tokens.Add(1)
	case strings.HasSuffix(r.URL.Path, "/subjectaccessreviews"):
		c.access.Add(1)
	}
	return c.next.RoundTrip(r)
}

// scrapeEnv is a TLS server behind a Filter and two service accounts'
// tokens: one allowed to get /metrics and /debug/pprof/*, one allowed
// nothing.
type scrapeEnv struct {
	url              string
	client           *http.Client
	allowed, refused string
	reviews          *reviewCounter
}

func newScrapeEnv(t *testing.T, opts ...serving.Option) *scrapeEnv {
	return newScrapeEnvTLS(t, nil, opts...)
}

// newScrapeEnvTLS is newScrapeEnv with client certificates of ca (if not
// nil) accepted; the user "cert-scraper" is allowed what "scraper" is.
func newScrapeEnvTLS(t *testing.T, ca *testCA, opts ...serving.Option) *scrapeEnv {
	t.Helper()
	ctx, cs := context.Background(), testkit.Clientset(t)
	ns := testkit.Namespace(t, "serving-")
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-scraper"},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics", "/debug/pprof/*"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{
			{Kind: "ServiceAccount", Name: "scraper", Namespace: ns},
			{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "cert-scraper"},
		},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	e := &scrapeEnv{allowed: token(t, cs, ns, "scraper"), refused: token(t, cs, ns, "nobody")}

	// The authorizer learns of RBAC changes through its informers: wait
	// until the binding is in force, asking the API server directly so
	// that the Filter's cache sees only settled answers.
	testkit.Eventually(t, 30*time.Second, "the ClusterRoleBinding in force", func() error {
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:" + ns + ":scraper", Groups: []string{"system:serviceaccounts"},
			NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if !got.Status.Allowed {
			return fmt.Errorf("not allowed yet: %s", got.Status.Reason)
		}
		return nil
	})

	cfg := rest.CopyConfig(testkit.Env(t).Config)
	e.reviews = &reviewCounter{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { e.reviews.next = rt; return e.reviews }
	api, err := serving.NewReviewer(cfg, nil) // nil: an HTTP client with cfg.WrapTransport
	if err != nil {
		t.Fatal(err)
	}
	filter, err := serving.NewFilter(api, opts...)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := serving.SelfSignedCertificate("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	caFile := ""
	if ca != nil {
		caFile = ca.file
	}
	tlsConfig, err := serving.TLSConfig(cert, caFile)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "served "+r.URL.Path) })
	srv := httptest.NewUnstartedServer(filter.Wrap(mux))
	srv.TLS = tlsConfig
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.url = srv.URL
	clientTLS := &tls.Config{InsecureSkipVerify: true}
	if ca != nil {
		clientTLS.Certificates = []tls.Certificate{ca.client}
	}
	e.client = &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS}}
	t.Cleanup(e.client.CloseIdleConnections)
	return e
}

// token returns a fresh token of service account name in ns, creating the
// account.
func token(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// get requests path with token (none if empty) and returns the status and body.
func (e *scrapeEnv) get(t *testing.T, path, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestFilterAgainstAPIServer(t *testing.T) {
	e := newScrapeEnv(t)
	for _, tc := range []struct {
		name, path, token string
		status            int
		body              string
	}{
		{"an allowed token scrapes", "/metrics", e.allowed, http.StatusOK, "served /metrics"},
		{"pprof follows its own rule", "/debug/pprof/heap", e.allowed, http.StatusOK, "served /debug/pprof/heap"},
		{"a path the role does not name", "/other", e.allowed, http.StatusForbidden, `cannot get path "/other"`},
		{"a token without permission", "/metrics", e.refused, http.StatusForbidden, `cannot get path "/metrics"`},
		{"no token", "/metrics", "", http.StatusUnauthorized, "Unauthorized"},
		{"a forged token", "/metrics", "eyJhbGciOiJSUzI1NiJ9.forged.signature", http.StatusUnauthorized, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.get(t, tc.path, tc.token)
			if status != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("GET %s: %d %q, want %d with %q", tc.path, status, body, tc.status, tc.body)
			}
		})
	}
}

// A scrape every few seconds costs the API server one review per token
// and one per user and path, for the cache's lifetime; concurrent scrapes
// share them.
func TestFilterCachesReviews(t *testing.T) {
	e := newScrapeEnv(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if status, body := e.get(t, "/metrics", e.allowed); status != http.StatusOK {
				t.Errorf("concurrent scrape: %d %q", status, body)
			}
		})
	}
	wg.Wait()
	for range 20 {
		if status, _ := e.get(t, "/metrics", e.allowed); status != http.StatusOK {
			t.Fatalf("scrape: %d", status)
		}
	}
	if tokens, access := e.reviews.tokens.Load(), e.reviews.access.Load(); tokens != 1 || access != 1 {
		t.Fatalf("28 scrapes made %d TokenReviews and %d SubjectAccessReviews, want 1 and 1", tokens, access)
	}
	e.get(t, "/debug/pprof/heap", e.allowed)
	if tokens, access := e.reviews.tokens.Load(), e.reviews.access.Load(); tokens != 1 || access != 2 {
		t.Fatalf("a second path: %d TokenReviews and %d SubjectAccessReviews, want 1 and 2", tokens, access)
	}
}

// After the cache's lifetime a token is reviewed again.
func TestFilterCacheExpires(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Now())
	e := newScrapeEnv(t, serving.WithClock(clock), serving.WithCacheTTL(time.Minute, 10*time.Second))
	e.get(t, "/metrics", e.allowed)
	e.get(t, "/metrics", e.refused)
	if tokens, access := e.reviews.tokens.Load(), e.reviews.access.Load(); tokens != 2 || access != 2 {
		t.Fatalf("%d TokenReviews and %d SubjectAccessReviews, want 2 and 2", tokens, access)
	}
	clock.SetTime(clock.Now().Add(10 * time.Second)) // the denial expires, the rest stays
	e.get(t, "/metrics", e.allowed)
	e.get(t, "/metrics", e.refused)
	if tokens, access := e.reviews.tokens.Load(), e.reviews.access.Load(); tokens != 2 || access != 3 {
		t.Fatalf("after 10s: %d TokenReviews and %d SubjectAccessReviews, want 2 and 3", tokens, access)
	}
	clock.SetTime(clock.Now().Add(time.Minute))
	e.get(t, "/metrics", e.allowed)
	if tokens, access := e.reviews.tokens.Load(), e.reviews.access.Load(); tokens != 3 || access != 4 {
		t.Fatalf("after a minute: %d TokenReviews and %d SubjectAccessReviews, want 3 and 4", tokens, access)
	}
}

// A client certificate signed by the configured CA authenticates its
// common name without a TokenReview; RBAC still decides.
func TestFilterClientCertificate(t *testing.T) {
	ca := newTestCA(t, "cert-scraper")
	e := newScrapeEnvTLS(t, ca)
	if status, body := e.get(t, "/metrics", ""); status != http.StatusOK {
		t.Fatalf("GET /metrics with a client certificate: %d %q", status, body)
	}
	if status, body := e.get(t, "/other", ""); status != http.StatusForbidden || !strings.Contains(body, `"cert-scraper"`) {
		t.Fatalf("GET /other with a client certificate: %d %q, want 403 naming the user", status, body)
	}
	if n := e.reviews.tokens.Load(); n != 0 {
		t.Fatalf("%d TokenReviews for a client certificate, want 0", n)
	}
}
