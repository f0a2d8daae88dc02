package certs

import (
	"crypto/ecdsa"
	"crypto/x509"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// ca makes a CA as the policy does at at.
func ca(t *testing.T, p policy, at time.Time) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	c, key, err := p.newCA(at)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// stored returns what a Secret holding the bundle cas (newest first, key
// the newest's), added at added, and a serving pair issued at issued by
// signer would parse to; a nil signer means no serving pair.
func stored(t *testing.T, p policy, cas []*x509.Certificate, key *ecdsa.PrivateKey, added time.Time, signer *x509.Certificate, signerKey *ecdsa.PrivateKey, issued time.Time) *material {
	t.Helper()
	m := &material{cas: cas, caKey: key, caAdded: added, signer: -1}
	if signer != nil {
		var err error
		if m.certPEM, m.keyPEM, err = p.newServing(issued, signer, signerKey); err != nil {
			t.Fatal(err)
		}
	}
	data, addedAt, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	return parseData(data, map[string]string{AnnotationCAAdded: addedAt})
}

// The decision table: each rule fires in its situation and only there.
func TestDecide(t *testing.T) {
	const v = time.Hour
	p := newPolicy(v, []string{"127.0.0.1"})
	if p.propagation != 2*time.Minute || p.interval != time.Minute || p.backdate != time.Minute {
		t.Fatalf("policy of %v: propagation %v, interval %v, backdate %v", v, p.propagation, p.interval, p.backdate)
	}
	clk := clocktesting.NewFakeClock(epoch)
	old, oldKey := ca(t, p, epoch)
	clk.Step(2 * v / 3)
	cur, curKey := ca(t, p, clk.Now())
	rotated := clk.Now()
	_, otherKey := ca(t, p, epoch)
	at := func(d time.Duration) time.Time { return rotated.Add(d) }

	cases := []struct {
		name     string
		m        *material
		now      time.Time
		injected time.Time
		want     change
	}{
		{"empty Secret", &material{signer: -1}, at(0), time.Time{}, rotateCA},
		{"CA key missing", stored(t, p, []*x509.Certificate{cur}, nil, rotated, cur, curKey, at(0)), at(0), at(0), rotateCA},
		{"CA key of another CA", stored(t, p, []*x509.Certificate{cur}, otherKey, rotated, cur, curKey, at(0)), at(0), at(0), rotateCA},
		{"CA with a third left", stored(t, p, []*x509.Certificate{cur}, curKey, rotated, cur, curKey, at(0)), at(2*v/3 + 2*time.Minute), at(0), rotateCA},
		{"CA with more than a third left", stored(t, p, []*x509.Certificate{cur}, curKey, rotated, cur, curKey, at(0)), at(2*v/3 - 2*time.Minute), at(0), keep},
		{"no serving certificate", stored(t, p, []*x509.Certificate{cur}, curKey, rotated, nil, nil, at(0)), at(0), at(0), issue},
		{"serving certificate of a CA not in the bundle", stored(t, p, []*x509.Certificate{cur}, curKey, rotated, old, oldKey, epoch), at(0), at(0), issue},
		{"old CA's certificate, new CA just added", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, old, oldKey, epoch), at(time.Second), at(0), keep},
		{"old CA's certificate, not injected", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, old, oldKey, epoch), at(10 * time.Minute), time.Time{}, keep},
		{"old CA's certificate, injected too recently", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, old, oldKey, epoch), at(10 * time.Minute), at(9 * time.Minute), keep},
		{"old CA's certificate, propagated", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, old, oldKey, epoch), at(p.propagation), at(0), issue},
		{"old CA's certificate about to expire, not injected", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, old, oldKey, epoch), at(v/3 - p.propagation), time.Time{}, issue},
		{"newest CA's certificate with a third left", stored(t, p, []*x509.Certificate{cur}, curKey, rotated, cur, curKey, at(-v/3)), at(25 * time.Minute), at(0), issue},
		{"expired CA in the bundle", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, cur, curKey, at(0)), at(v / 3), at(0), pruneCAs},
		{"old CA still valid", stored(t, p, []*x509.Certificate{cur, old}, curKey, rotated, cur, curKey, at(0)), at(v/3 - time.Second), at(0), keep},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := p.decide(c.now, c.m, c.injected); d.change != c.want {
				t.Fatalf("decided %v (%s), want %v", d.change, d.reason, c.want)
			}
		})
	}
}

// apply keeps the serving pair at a CA rotation and the CAs that may still
// be presented, and prunes only expired CAs.
func TestApply(t *testing.T) {
	p := newPolicy(time.Hour, []string{"webhook.system.svc", "127.0.0.1"})
	old, oldKey := ca(t, p, epoch)
	now := epoch.Add(40 * time.Minute)
	m := stored(t, p, []*x509.Certificate{old}, oldKey, epoch, old, oldKey, epoch)

	r, err := p.apply(now, m, decision{change: rotateCA})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.cas) != 2 || !r.cas[1].Equal(old) || r.signer != 1 || r.leaf() != m.leaf() || !r.caAdded.Equal(now) {
		t.Fatalf("after rotateCA: %d CAs, signer %d, same leaf %v, added %v", len(r.cas), r.signer, r.leaf() == m.leaf(), r.caAdded)
	}
	if !r.caKey.PublicKey.Equal(r.cas[0].PublicKey) || !r.cas[0].IsCA || r.cas[0].KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Fatal("new CA: key does not match, or not a CA that signs certificates")
	}

	s, err := p.apply(now, r, decision{change: issue})
	if err != nil {
		t.Fatal(err)
	}
	leaf := s.leaf()
	if s.signer != 0 || leaf.CheckSignatureFrom(s.cas[0]) != nil {
		t.Fatal("issued certificate not signed by the newest CA")
	}
	if !leaf.NotAfter.Equal(s.cas[0].NotAfter) || leaf.NotBefore.After(now) {
		t.Fatalf("serving certificate valid %v to %v, want from before %v to the CA's end %v", leaf.NotBefore, leaf.NotAfter, now, s.cas[0].NotAfter)
	}
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != "webhook.system.svc" || len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal([]byte{127, 0, 0, 1}) {
		t.Fatalf("SANs %v %v", leaf.DNSNames, leaf.IPAddresses)
	}
	if len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Fatalf("extended key usage %v", leaf.ExtKeyUsage)
	}

	pr, err := p.apply(old.NotAfter, s, decision{change: pruneCAs})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.cas) != 1 || pr.cas[0] != s.cas[0] || pr.signer != 0 {
		t.Fatalf("after pruneCAs: %d CAs, signer %d", len(pr.cas), pr.signer)
	}
}

// What does not parse is left out, for the rotation to repair.
func TestParseBroken(t *testing.T) {
	p := newPolicy(time.Hour, []string{"127.0.0.1"})
	c, key := ca(t, p, epoch)
	good := stored(t, p, []*x509.Certificate{c}, key, epoch, c, key, epoch)
	data, _, err := good.encode()
	if err != nil {
		t.Fatal(err)
	}
	data[keyCABundle] = append([]byte("garbage\n"), data[keyCABundle]...)
	data[keyServingKey] = []byte("not a key")
	m := parseData(data, nil)
	if len(m.cas) != 1 || m.caKey == nil || m.pair != nil || m.signer != -1 || !m.caAdded.Equal(c.NotBefore) {
		t.Fatalf("%d CAs, key %v, pair %v, signer %d, added %v", len(m.cas), m.caKey != nil, m.pair != nil, m.signer, m.caAdded)
	}
	if d := p.decide(epoch, m, epoch); d.change != issue {
		t.Fatalf("decided %v, want issue", d.change)
	}
}
