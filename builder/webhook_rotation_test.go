package builder_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
)

// Two replicas serve the Widget webhooks with certificates that live 20 s
// (certs.MinValidity is 10 s), so the CA rotates every 13 s; admission
// calls to both and conversions through the first go on, about ten a
// second, until the CA has rotated three times. None may fail. A third
// replica started midway serves the same certificate as the others.
func TestWebhookCertificatesRotateWithoutAFailedCall(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a control plane")
	}
	const validity = 20 * time.Second
	w := startWidgets(t, validity, 2)
	t.Logf("two replicas ready %v after Start, from nothing", w.ready)
	ctx := context.Background()
	secrets := testkit.Env(t).Clientset.CoreV1().Secrets(w.ns)

	var calls, failures int
	var firstFailure error
	cas, leaves := map[string]bool{}, map[string]bool{}
	third := false
	deadline := time.Now().Add(3*validity + 20*time.Second)
	// Until the fourth CA has signed a serving certificate.
	for i := 0; len(cas) < 4 || len(leaves) < 4; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d CAs and %d serving certificates seen by %v", len(cas), len(leaves), deadline)
		}
		size := int64(20 + i%50) // never unlucky
		name := fmt.Sprintf("w-%d", i)
		if _, err := w.v1.Create(ctx, widget(w.group, "v1", name, map[string]any{"size": size}), metav1.CreateOptions{}); err != nil {
			failures, firstFailure = failures+1, firstNonNil(firstFailure, fmt.Errorf("create %s: %w", name, err))
		}
		got, err := w.v2.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != size {
				err = fmt.Errorf("converted replicas %d, want %d", r, size)
			}
		}
		if err != nil {
			failures, firstFailure = failures+1, firstNonNil(firstFailure, fmt.Errorf("get %s as v2: %w", name, err))
		}
		calls += 2
		sec, err := secrets.Get(ctx, "webhook-certs", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cas[string(firstPEM(t, sec.Data["ca.crt"]))] = true
		leaves[string(sec.Data[corev1.TLSCertKey])] = true
		if len(cas) == 2 && !third {
			third = true
			w.startReplica(t)
			waitReady(t, w.mgrs[2])
			sameCertificate(t, w)
		}
		time.Sleep(100 * time.Millisecond) // a steady rate of calls, not a wait for a condition
	}
	t.Logf("%d calls (admission on 2 replicas, conversion), %d CAs, %d serving certificates, %d failed", calls, len(cas), len(leaves), failures)
	if failures > 0 {
		t.Errorf("%d of %d calls failed while certificates rotated; first: %v", failures, calls, firstFailure)
	}
	sameCertificate(t, w)
}

// sameCertificate checks that every replica presents the same certificate
// and that the bundle injected into the validating configuration
// verifies it.
func sameCertificate(t *testing.T, w *widgetEnv) {
	t.Helper()
	var first []byte
	for i, m := range w.mgrs {
		bundle := w.bundle(t)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(bundle)
		conn, err := tls.Dial("tcp", m.WebhookServer().Addr(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
		if err != nil {
			t.Fatalf("replica %d: handshake with the injected bundle: %v", i, err)
		}
		leaf := conn.ConnectionState().PeerCertificates[0].Raw
		conn.Close()
		if first == nil {
			first = leaf
		} else if !bytes.Equal(first, leaf) {
			// A rotation may land between two handshakes; ask again.
			testkit.Eventually(t, 5*time.Second, fmt.Sprintf("replica %d presents replica 0's certificate", i), func() error {
				if a, b := presented(t, w.mgrs[0]), presented(t, m); !bytes.Equal(a, b) {
					return fmt.Errorf("different certificates")
				}
				return nil
			})
		}
	}
}

// presented is the certificate m's webhook server presents now.
func presented(t *testing.T, m *manager.Manager) []byte {
	t.Helper()
	conn, err := tls.Dial("tcp", m.WebhookServer().Addr(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}

// bundle is the CA bundle of the environment's validating configuration.
func (w *widgetEnv) bundle(t *testing.T) []byte {
	t.Helper()
	vwc, err := testkit.Env(t).Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), w.group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return vwc.Webhooks[0].ClientConfig.CABundle
}

// firstPEM is the first certificate of a PEM bundle, the newest CA.
func firstPEM(t *testing.T, bundle []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(bundle)
	if block == nil {
		t.Fatalf("no certificate in the bundle %q", bundle)
	}
	return block.Bytes
}

func firstNonNil(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
