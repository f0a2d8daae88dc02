package admit

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"
)

func TestWriteCerts(t *testing.T) {
	dir := t.TempDir()
	caPEM, err := WriteCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("the CA does not parse")
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
}
