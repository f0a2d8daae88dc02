package certs

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"time"
)

// Keys of the Secret's data.
const (
	keyServingCert = "tls.crt"
	keyServingKey  = "tls.key"
	keyCABundle    = "ca.crt"
	keyCAKey       = "ca.key"
)

// AnnotationCAAdded is the annotation of the Secret recording, in RFC 3339
// with nanoseconds, when the newest CA was added to the bundle; serving
// certificates move to that CA a propagation delay later.
const AnnotationCAAdded = "certs.steady.dev/ca-added-at"

// AnnotationSecretVersion is the annotation of each webhook configuration
// and CRD recording the resourceVersion of the Secret its CA bundle was
// taken from. A replica whose view of the Secret is older does not
// overwrite the bundle.
const AnnotationSecretVersion = "certs.steady.dev/secret-resource-version"

// material is what a Secret holds, parsed. Whatever is missing or does not
// parse is left empty, for the rotation to repair.
type material struct {
	cas     []*x509.Certificate // the bundle, newest first
	caKey   *ecdsa.PrivateKey   // the key of cas[0]; nil if missing or not matching
	caAdded time.Time           // when cas[0] was added to the bundle

	certPEM, keyPEM []byte           // the serving pair as stored
	pair            *tls.Certificate // nil if the pair is missing or broken
	signer          int              // index in cas of the pair's issuer; -1 if none
}

// leaf returns the serving certificate, or nil.
func (m *material) leaf() *x509.Certificate {
	if m.pair == nil {
		return nil
	}
	return m.pair.Leaf
}

// parseData reads a Secret's data and annotations.
func parseData(data map[string][]byte, annotations map[string]string) *material {
	m := &material{cas: decodeCerts(data[keyCABundle]), signer: -1}
	for i := 0; i < len(m.cas); i++ {
		if !m.cas[i].IsCA {
			m.cas = append(m.cas[:i], m.cas[i+1:]...)
			i--
		}
	}
	if len(m.cas) > 0 {
		if key := decodeKey(data[keyCAKey]); key != nil && key.PublicKey.Equal(m.cas[0].PublicKey) {
			m.caKey = key
		}
		m.caAdded = m.cas[0].NotBefore
		if t, err := time.Parse(time.RFC3339Nano, annotations[AnnotationCAAdded]); err == nil {
			m.caAdded = t
		}
	}
	m.certPEM, m.keyPEM = data[keyServingCert], data[keyServingKey]
	if pair, err := tls.X509KeyPair(m.certPEM, m.keyPEM); err == nil && pair.Leaf != nil {
		m.pair = &pair
	}
	m.findSigner()
	return m
}

// findSigner sets signer to the index of the CA in the bundle that
// signed the serving certificate, or -1.
func (m *material) findSigner() {
	m.signer = -1
	if m.pair == nil {
		return
	}
	for i, ca := range m.cas {
		if m.pair.Leaf.CheckSignatureFrom(ca) == nil {
			m.signer = i
			return
		}
	}
}

// encode returns the Secret data and the annotation value of m.
func (m *material) encode() (data map[string][]byte, caAdded string, err error) {
	data = map[string][]byte{
		keyServingCert: m.certPEM,
		keyServingKey:  m.keyPEM,
		keyCABundle:    encodeCerts(m.cas),
	}
	if m.caKey != nil {
		if data[keyCAKey], err = encodeKey(m.caKey); err != nil {
			return nil, "", err
		}
	}
	return data, m.caAdded.UTC().Format(time.RFC3339Nano), nil
}

// clone returns a copy of m that can be changed without changing m; the
// certificates and keys themselves are immutable and shared.
func (m *material) clone() *material {
	out := *m
	out.cas = append([]*x509.Certificate(nil), m.cas...)
	return &out
}
