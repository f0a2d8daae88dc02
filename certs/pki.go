package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// policy is the timing every decision derives from the validity, and what
// a serving certificate is issued for.
type policy struct {
	validity time.Duration
	// propagation is how long a new CA must have been in the bundle, and
	// the bundle injected everywhere, before a serving certificate it
	// signed is presented: time for every API server's informer to see the
	// new bundle and for every replica to read the Secret.
	propagation time.Duration
	// backdate moves NotBefore into the past, for clients whose clock is
	// a little behind.
	backdate time.Duration
	// interval is the period of the timer-driven check.
	interval time.Duration
	dns      []string
	ips      []net.IP
}

func newPolicy(validity time.Duration, hosts []string) policy {
	dns, ips := splitHosts(hosts)
	return policy{
		validity:    validity,
		propagation: clamp(validity/10, time.Second, 2*time.Minute),
		backdate:    min(validity/20, time.Minute),
		interval:    clamp(validity/50, time.Second, time.Minute),
		dns:         dns,
		ips:         ips,
	}
}

func clamp(d, lo, hi time.Duration) time.Duration { return max(lo, min(d, hi)) }

// newCA makes a self-signed CA valid for the policy's validity from now.
func (p policy) newCA(now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: generating CA key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("steady-webhook-ca@%d", now.UnixNano())},
		NotBefore:             now.Add(-p.backdate),
		NotAfter:              now.Add(p.validity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: signing CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: parsing new CA certificate: %w", err)
	}
	return ca, key, nil
}

// newServing issues a serving certificate from ca: valid from now for the
// policy's validity, but never beyond the CA, so that the CA's expiry
// bounds every certificate it signed.
func (p policy) newServing(now time.Time, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: generating serving key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	var name string // New requires a host, so there is one of either
	if len(p.dns) > 0 {
		name = p.dns[0]
	} else {
		name = p.ips[0].String()
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-p.backdate),
		NotAfter:     minTime(now.Add(p.validity), ca.NotAfter),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     p.dns,
		IPAddresses:  p.ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: signing serving certificate: %w", err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("certs: certificate serial number: %w", err)
	}
	return serial, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("certs: encoding key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// decodeKey returns the ECDSA key in PEM data (PKCS #8 or SEC 1), or nil.
func decodeKey(data []byte) *ecdsa.PrivateKey {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		key, _ := k.(*ecdsa.PrivateKey)
		return key
	}
	key, _ := x509.ParseECPrivateKey(block.Bytes)
	return key
}

// encodeCerts writes certificates as concatenated PEM blocks, in order.
func encodeCerts(certs []*x509.Certificate) []byte {
	var buf bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return buf.Bytes()
}

// decodeCerts returns the certificates in PEM data, in order, skipping
// blocks that are not certificates or do not parse.
func decodeCerts(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return out
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// bundleHas reports whether the PEM bundle holds the certificate whose DER
// encoding is raw.
func bundleHas(bundle, raw []byte) bool {
	for _, c := range decodeCerts(bundle) {
		if bytes.Equal(c.Raw, raw) {
			return true
		}
	}
	return false
}
