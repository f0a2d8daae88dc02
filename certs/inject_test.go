package certs_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
)

// A bundle taken from a newer Secret than the replica's is left alone
// (the replica's view is stale), and Ready says the configuration lacks
// the CA; once the configuration records an older Secret, the bundle is
// replaced. A CRD not converted by a webhook cannot carry a bundle, and
// Ready says so.
func TestInjectionGuard(t *testing.T) {
	t.Parallel()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "certs-guard-")
	secret := types.NamespacedName{Namespace: ns, Name: "webhook-certs"}
	config := ns + "-guard"
	foreign := foreignCA(t)
	hooks := webhooks("no-such-namespace", "https://127.0.0.1:1")
	hooks[0].ClientConfig.CABundle = foreign
	createValidating(t, config, hooks, map[string]string{certs.AnnotationSecretVersion: "999999999999"})
	gvk := schema.GroupVersionKind{Group: ns + ".steady.dev", Version: "v1", Kind: "Plain"}
	testkit.InstallCRD(t, gvk)
	plain := "plains." + gvk.Group

	a := newAuthority(t, secret, certs.WithValidatingWebhooks(config))
	c := newAuthority(t, secret, certs.WithCRDs(plain))
	testkit.Run(t, a.Start, c.Start)

	testkit.Eventually(t, 10*time.Second, "Ready to say the configuration lacks the CA", func() error {
		if err := a.Ready(); err == nil || !strings.Contains(err.Error(), config+": caBundle lacks the CA") {
			return fmt.Errorf("Ready: %v", err)
		}
		return nil
	})
	testkit.Consistently(t, 2*time.Second, "the newer bundle to stay", func() error {
		bundles, _, err := validatingBundles(t, config)
		if err != nil {
			return err
		}
		return allAre(bundles, foreign)
	})

	api := env.Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	cfg, err := api.Get(context.Background(), config, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Annotations[certs.AnnotationSecretVersion] = "1"
	if _, err := api.Update(context.Background(), cfg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "Ready once the configuration's bundle is older", a.Ready)
	bundles, ann, err := validatingBundles(t, config)
	if err != nil {
		t.Fatal(err)
	}
	if err := allAre(bundles, a.CABundle()); err != nil || ann[certs.AnnotationSecretVersion] == "1" {
		t.Fatalf("bundle: %v; annotation %q", err, ann[certs.AnnotationSecretVersion])
	}

	testkit.Eventually(t, 10*time.Second, "Ready to say the CRD has no conversion webhook", func() error {
		if err := c.Ready(); err == nil || !strings.Contains(err.Error(), "CustomResourceDefinition "+plain+": spec.conversion.strategy is not Webhook") {
			return fmt.Errorf("Ready: %v", err)
		}
		return nil
	})
	if !bytes.Equal(c.CABundle(), a.CABundle()) {
		t.Fatal("two Authorities on one Secret report different bundles")
	}
	if _, err := served(c); err != nil {
		t.Fatal(errors.Join(errors.New("a target that cannot carry a bundle keeps the certificate from being served"), err))
	}
}

// foreignCA returns the PEM of a CA no Authority made.
func foreignCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "foreign"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// otherKey returns the PEM of an ECDSA key no certificate is for.
func otherKey(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}
