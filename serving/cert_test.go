package serving_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/serving"
)

// writePair writes a self-signed certificate for 127.0.0.1 with the given
// serial, and its key, as PEM files.
func writePair(t *testing.T, certFile, keyFile string, serial int64) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	write(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// write replaces a file's contents and moves its modification time on, so
// that a change is seen even within the file system's time resolution.
func write(t *testing.T, name string, data []byte) {
	t.Helper()
	old, statErr := os.Stat(name)
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if statErr == nil {
		mod := old.ModTime().Add(time.Second)
		if err := os.Chtimes(name, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
}

func serialOf(t *testing.T, c *serving.Certificate) int64 {
	t.Helper()
	got, err := c.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(got.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.SerialNumber.Int64()
}

func TestCertificateRotation(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writePair(t, certFile, keyFile, 1)
	clock := clocktesting.NewFakePassiveClock(time.Now())
	cert, err := serving.LoadCertificate(certFile, keyFile, serving.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if got := serialOf(t, cert); got != 1 {
		t.Fatalf("serial %d, want 1", got)
	}

	writePair(t, certFile, keyFile, 2)
	if got := serialOf(t, cert); got != 1 {
		t.Fatalf("serial %d within a second of the last look, want the old 1", got)
	}
	clock.SetTime(clock.Now().Add(time.Second))
	if got := serialOf(t, cert); got != 2 {
		t.Fatalf("serial %d after rotation, want 2", got)
	}

	// A rotation caught half-way keeps the previous certificate.
	write(t, keyFile, []byte("not a key"))
	clock.SetTime(clock.Now().Add(time.Second))
	if got := serialOf(t, cert); got != 2 {
		t.Fatalf("serial %d with a broken key file, want the previous 2", got)
	}
	writePair(t, certFile, keyFile, 3)
	clock.SetTime(clock.Now().Add(time.Second))
	if got := serialOf(t, cert); got != 3 {
		t.Fatalf("serial %d once the pair is whole again, want 3", got)
	}
}

// A TLS server picks the rotated certificate for new connections without
// a restart.
func TestRotatedCertificateServed(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writePair(t, certFile, keyFile, 10)
	clock := clocktesting.NewFakePassiveClock(time.Now())
	cert, err := serving.LoadCertificate(certFile, keyFile, serving.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := serving.TLSConfig(cert, "")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	defer func() { srv.Close(); <-done }()

	served := func() int64 {
		t.Helper()
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if got := served(); got != 10 {
		t.Fatalf("served serial %d, want 10", got)
	}
	writePair(t, certFile, keyFile, 11)
	clock.SetTime(clock.Now().Add(time.Second))
	if got := served(); got != 11 {
		t.Fatalf("served serial %d after rotation, want 11", got)
	}
}

func TestLoadCertificateErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if _, err := serving.LoadCertificate(certFile, keyFile); err == nil || !strings.Contains(err.Error(), certFile) {
		t.Fatalf("missing files: %v, want an error naming %s", err, certFile)
	}
	writePair(t, certFile, keyFile, 1)
	write(t, keyFile, []byte("garbage"))
	if _, err := serving.LoadCertificate(certFile, keyFile); err == nil || !strings.Contains(err.Error(), keyFile) {
		t.Fatalf("bad key: %v, want an error naming %s", err, keyFile)
	}
	if _, err := serving.LoadCertificate("", keyFile); err == nil {
		t.Fatal("no certificate file accepted")
	}
	if _, err := serving.TLSConfig(nil, ""); err == nil {
		t.Fatal("TLSConfig without a certificate accepted")
	}
	cert, err := serving.SelfSignedCertificate("127.0.0.1", "metrics.example")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serving.TLSConfig(cert, filepath.Join(dir, "missing-ca.crt")); err == nil || !strings.Contains(err.Error(), "missing-ca.crt") {
		t.Fatalf("missing client CA: %v, want an error naming it", err)
	}
}

// testCA is a certificate authority written to a file, and a client
// certificate it signed.
type testCA struct {
	file   string
	client tls.Certificate
}

func newTestCA(t *testing.T, clientName string) *testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: clientName, Organization: []string{"monitoring"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.crt")
	write(t, file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	return &testCA{file: file, client: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
}
