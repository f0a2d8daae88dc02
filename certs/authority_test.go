package certs_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
)

// From nothing: the Secret is created with a valid chain, the certificate
// is served, configurations get the bundle, and Ready says what is
// missing until a configuration created later has it too.
func TestFromNothing(t *testing.T) {
	t.Parallel()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "certs-new-")
	secret := types.NamespacedName{Namespace: ns, Name: "webhook-certs"}
	pre, late, mutating := ns+"-pre", ns+"-late", ns+"-mutating"
	// Webhooks for a namespace that does not exist: they are never called.
	createValidating(t, pre, webhooks("no-such-namespace", "https://127.0.0.1:1", "https://127.0.0.1:2"), nil)
	createMutating(t, mutating)

	a := newAuthority(t, secret, certs.WithValidatingWebhooks(pre, late), certs.WithMutatingWebhooks(mutating))
	start := time.Now()
	testkit.Run(t, a.Start)

	testkit.Eventually(t, 10*time.Second, "a serving certificate", func() error { _, err := served(a); return err })
	sec, err := env.Clientset.CoreV1().Secrets(ns).Get(context.Background(), secret.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSecret(t, sec, start)
	if err := verify(a); err != nil {
		t.Fatalf("served certificate does not verify against CABundle: %v", err)
	}
	if !bytes.Equal(a.CABundle(), sec.Data["ca.crt"]) {
		t.Fatal("CABundle is not the Secret's ca.crt")
	}

	testkit.Eventually(t, 10*time.Second, "the bundle in "+pre, func() error {
		bundles, ann, err := validatingBundles(t, pre)
		if err != nil {
			return err
		}
		if ann[certs.AnnotationSecretVersion] != sec.ResourceVersion {
			return fmt.Errorf("annotation %q, want the Secret's version %s", ann[certs.AnnotationSecretVersion], sec.ResourceVersion)
		}
		return allAre(bundles, a.CABundle())
	})
	testkit.Eventually(t, 10*time.Second, "the bundle in "+mutating, func() error {
		c, err := env.Clientset.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), mutating, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return allAre([][]byte{c.Webhooks[0].ClientConfig.CABundle}, a.CABundle())
	})
	testkit.Eventually(t, 10*time.Second, "Ready to name only the missing configuration", func() error {
		err := a.Ready()
		if err == nil || !strings.Contains(err.Error(), "ValidatingWebhookConfiguration "+late+" not found") ||
			strings.Contains(err.Error(), pre) || strings.Contains(err.Error(), mutating) {
			return fmt.Errorf("Ready: %v", err)
		}
		return nil
	})

	createValidating(t, late, webhooks("no-such-namespace", "https://127.0.0.1:1"), nil)
	testkit.Eventually(t, 15*time.Second, "Ready once "+late+" exists", a.Ready)
	bundles, _, err := validatingBundles(t, late)
	if err != nil {
		t.Fatal(err)
	}
	if err := allAre(bundles, a.CABundle()); err != nil {
		t.Fatal(err)
	}
}

// checkSecret checks the Secret's chain: one ECDSA P-256 CA that signs
// certificates, its key, and a server certificate for 127.0.0.1 from it,
// valid from before start for a year.
func checkSecret(t *testing.T, sec *corev1.Secret, start time.Time) {
	t.Helper()
	if sec.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %s", sec.Type)
	}
	cas := parseCerts(t, sec.Data["ca.crt"])
	if len(cas) != 1 {
		t.Fatalf("%d CAs in ca.crt, want 1", len(cas))
	}
	ca := cas[0]
	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 || !isP256(ca.PublicKey) {
		t.Fatalf("CA: IsCA %v, key usage %v, key %T", ca.IsCA, ca.KeyUsage, ca.PublicKey)
	}
	block, _ := pem.Decode(sec.Data["ca.key"])
	if block == nil {
		t.Fatal("no ca.key")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := key.(*ecdsa.PrivateKey); !ok || !k.PublicKey.Equal(ca.PublicKey) {
		t.Fatal("ca.key is not the CA's key")
	}
	leaves := parseCerts(t, sec.Data["tls.crt"])
	if len(leaves) != 1 {
		t.Fatalf("%d certificates in tls.crt", len(leaves))
	}
	leaf := leaves[0]
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Fatal(err)
	}
	if !isP256(leaf.PublicKey) || leaf.IsCA {
		t.Fatalf("serving certificate: key %T, IsCA %v", leaf.PublicKey, leaf.IsCA)
	}
	if !leaf.NotBefore.Before(start) || leaf.NotAfter.After(ca.NotAfter) || leaf.NotAfter.Before(start.Add(certs.DefaultValidity-time.Minute)) {
		t.Fatalf("serving certificate valid %v to %v; CA until %v; started at %v", leaf.NotBefore, leaf.NotAfter, ca.NotAfter, start)
	}
	if _, err := time.Parse(time.RFC3339Nano, sec.Annotations[certs.AnnotationCAAdded]); err != nil {
		t.Fatalf("annotation %s: %v", certs.AnnotationCAAdded, err)
	}
}

// createMutating creates a MutatingWebhookConfiguration that is never
// called and deletes it when the test ends.
func createMutating(t *testing.T, name string) {
	t.Helper()
	api := testkit.Env(t).Clientset.AdmissionregistrationV1().MutatingWebhookConfigurations()
	v := webhooks("no-such-namespace", "https://127.0.0.1:1")[0]
	c := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionv1.MutatingWebhook{{
		Name: v.Name, ClientConfig: v.ClientConfig, Rules: v.Rules, NamespaceSelector: v.NamespaceSelector,
		FailurePolicy: v.FailurePolicy, SideEffects: v.SideEffects, AdmissionReviewVersions: v.AdmissionReviewVersions,
	}}}
	if _, err := api.Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// Replicas started together agree on one CA; one started later serves it
// too; all of them follow a change of the Secret through the watch (the
// timer of a one-year validity fires once a minute), and a deleted Secret
// is recreated with the same CA.
func TestReplicas(t *testing.T) {
	t.Parallel()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "certs-replicas-")
	secret := types.NamespacedName{Namespace: ns, Name: "webhook-certs"}
	secrets := env.Clientset.CoreV1().Secrets(ns)
	a, b := newAuthority(t, secret), newAuthority(t, secret)
	testkit.Run(t, a.Start, b.Start)

	same := func(replicas ...*certs.Authority) func() error {
		return func() error {
			sec, err := secrets.Get(context.Background(), secret.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			want := parseCerts(t, sec.Data["tls.crt"])[0].Raw
			for i, r := range replicas {
				got, err := served(r)
				if err != nil {
					return err
				}
				if !bytes.Equal(got, want) || !bytes.Equal(r.CABundle(), sec.Data["ca.crt"]) {
					return fmt.Errorf("replica %d does not serve the Secret's certificate and bundle", i)
				}
			}
			return nil
		}
	}
	testkit.Eventually(t, 10*time.Second, "both replicas to serve the Secret's certificate", same(a, b))
	sec, err := secrets.Get(context.Background(), secret.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(parseCerts(t, sec.Data["ca.crt"])); n != 1 {
		t.Fatalf("%d CAs after two replicas started, want 1", n)
	}

	c := newAuthority(t, secret)
	testkit.Run(t, c.Start)
	testkit.Eventually(t, 10*time.Second, "a later replica to serve the same certificate", same(a, b, c))

	// A key that does not match makes a replica issue a new certificate
	// from the same CA.
	before, _ := served(a)
	sec.Data["tls.key"] = otherKey(t)
	if _, err := secrets.Update(context.Background(), sec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "every replica to serve a repaired certificate", func() error {
		if now, _ := served(a); bytes.Equal(now, before) {
			return errors.New("still the old certificate")
		}
		return same(a, b, c)()
	})
	if err := verify(c); err != nil {
		t.Fatal(err)
	}

	bundle := a.CABundle()
	if err := secrets.Delete(context.Background(), secret.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the Secret recreated with the same bundle", func() error {
		sec, err := secrets.Get(context.Background(), secret.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !bytes.Equal(sec.Data["ca.crt"], bundle) {
			return errors.New("another bundle")
		}
		return same(a, b, c)()
	})
}
