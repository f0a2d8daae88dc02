package certs_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
)

// newAuthority returns an Authority for 127.0.0.1 on the test control
// plane, logging to t.
func newAuthority(t *testing.T, secret types.NamespacedName, opts ...certs.Option) *certs.Authority {
	t.Helper()
	opts = append([]certs.Option{certs.WithHosts("127.0.0.1"), certs.WithLogger(testr.New(t))}, opts...)
	a, err := certs.New(testkit.Env(t).Config, secret, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// served returns the DER of the certificate a presents, or an error.
func served(a *certs.Authority) ([]byte, error) {
	c, err := a.GetCertificate(nil)
	if err != nil {
		return nil, err
	}
	return c.Certificate[0], nil
}

// verify checks that a's certificate is a server certificate for
// 127.0.0.1 signed by a CA of a's bundle.
func verify(a *certs.Authority) error {
	c, err := a.GetCertificate(nil)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(a.CABundle()) {
		return fmt.Errorf("no certificate in bundle %q", a.CABundle())
	}
	_, err = c.Leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

// parseCerts returns the certificates of a PEM bundle.
func parseCerts(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// isP256 reports whether key is an ECDSA P-256 public key.
func isP256(key any) bool {
	k, ok := key.(*ecdsa.PublicKey)
	return ok && k.Curve == elliptic.P256()
}

// webhooks returns the webhooks of a ValidatingWebhookConfiguration, one
// per URL, each called on creates of ConfigMaps in namespace ns and
// failing the create if the call fails.
func webhooks(ns string, urls ...string) []admissionv1.ValidatingWebhook {
	fail, none, timeout := admissionv1.Fail, admissionv1.SideEffectClassNone, int32(10)
	var out []admissionv1.ValidatingWebhook
	for i, u := range urls {
		url := u + "/validate"
		out = append(out, admissionv1.ValidatingWebhook{
			Name:         fmt.Sprintf("w%d.certs.steady.dev", i),
			ClientConfig: admissionv1.WebhookClientConfig{URL: &url},
			Rules: []admissionv1.RuleWithOperations{{
				Operations: []admissionv1.OperationType{admissionv1.Create},
				Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		})
	}
	return out
}

// createValidating creates a ValidatingWebhookConfiguration and deletes it
// when the test ends: configurations are cluster-wide.
func createValidating(t *testing.T, name string, hooks []admissionv1.ValidatingWebhook, annotations map[string]string) {
	t.Helper()
	api := testkit.Env(t).Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	c := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}, Webhooks: hooks}
	if _, err := api.Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// validatingBundles returns the caBundle of each webhook of a
// ValidatingWebhookConfiguration, and its annotations.
func validatingBundles(t *testing.T, name string) ([][]byte, map[string]string, error) {
	t.Helper()
	c, err := testkit.Env(t).Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	var out [][]byte
	for _, w := range c.Webhooks {
		out = append(out, w.ClientConfig.CABundle)
	}
	return out, c.Annotations, nil
}

// allAre returns nil if every bundle is want.
func allAre(bundles [][]byte, want []byte) error {
	if len(want) == 0 {
		return fmt.Errorf("empty bundle")
	}
	for i, b := range bundles {
		if !bytes.Equal(b, want) {
			return fmt.Errorf("webhook %d has bundle %.40q…, want %.40q…", i, b, want)
		}
	}
	return nil
}

// admissionServer is a webhook server allowing every admission review,
// presenting get's certificate. It closes each connection after one
// request, so that every call makes a TLS handshake and is verified
// against the bundle the API server holds at that moment.
type admissionServer struct {
	URL        string
	calls      atomic.Int64
	handshakes atomic.Int64
	tlsErrors  atomic.Int64 // failed handshakes, as the server logs them

	mu  sync.Mutex
	cas []string // issuers of the certificates presented, repeats collapsed
}

func startAdmissionServer(t *testing.T, get func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *admissionServer {
	t.Helper()
	s := &admissionServer{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.URL = "https://" + ln.Addr().String()
	srv := &http.Server{
		Handler: s,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
			c, err := get(h)
			if err == nil {
				s.presented(c.Leaf.Issuer.CommonName)
			}
			return c, err
		}},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(errorCounter{&s.tlsErrors}, "", 0),
	}
	srv.SetKeepAlivesEnabled(false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeTLS(ln, "", "")
	}()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return s
}

func (s *admissionServer) presented(issuer string) {
	s.handshakes.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cas) == 0 || s.cas[len(s.cas)-1] != issuer {
		s.cas = append(s.cas, issuer)
	}
}

// caChanges returns how many times the CA of the certificate presented
// changed.
func (s *admissionServer) caChanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(len(s.cas)-1, 0)
}

// ServeHTTP allows the review, answering with its uid.
func (s *admissionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request.UID == "" {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	s.calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":%q,"allowed":true}}`, review.Request.UID)
}

// errorCounter counts the TLS handshake errors an http.Server logs.
type errorCounter struct{ n *atomic.Int64 }

func (c errorCounter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "TLS handshake error") {
		c.n.Add(1)
	}
	return len(p), nil
}
