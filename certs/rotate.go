package certs

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"
)

// change is what a check decides to do to the Secret.
type change int

const (
	keep     change = iota // nothing to do
	rotateCA               // add a new CA in front of the bundle
	issue                  // issue a serving certificate from the newest CA
	pruneCAs               // drop expired CAs from the bundle
)

// decision is a change and why, for the log.
type decision struct {
	change change
	reason string
}

// decide applies the rotation rules, in order, to m at now. injectedSince
// is when this replica first saw every existing target carry the newest
// CA, or zero if some does not.
func (p policy) decide(now time.Time, m *material, injectedSince time.Time) decision {
	if len(m.cas) == 0 {
		return decision{rotateCA, "no CA"}
	}
	newest := m.cas[0]
	if m.caKey == nil {
		return decision{rotateCA, "the newest CA's key is missing or does not match it"}
	}
	if left := newest.NotAfter.Sub(now); left < lifetime(newest)/3 {
		return decision{rotateCA, fmt.Sprintf("CA expires at %s", newest.NotAfter.Format(time.RFC3339))}
	}
	leaf := m.leaf()
	if leaf == nil || m.signer < 0 || !now.Before(leaf.NotAfter) {
		return decision{issue, "no valid serving certificate signed by a CA of the bundle"}
	}
	if m.signer > 0 {
		switch {
		case leaf.NotAfter.Sub(now) <= p.propagation:
			// Presenting a certificate a client may not trust yet beats
			// presenting one every client refuses in a moment: this is the
			// way out when injection is blocked for a long time.
			return decision{issue, "serving certificate expires before the new CA is propagated"}
		case !injectedSince.IsZero() && now.Sub(m.caAdded) >= p.propagation && now.Sub(injectedSince) >= p.propagation:
			return decision{issue, "new CA propagated"}
		}
	} else if left := leaf.NotAfter.Sub(now); left < lifetime(leaf)/3 {
		return decision{issue, fmt.Sprintf("serving certificate expires at %s", leaf.NotAfter.Format(time.RFC3339))}
	}
	for _, ca := range m.cas[1:] {
		if !now.Before(ca.NotAfter) {
			return decision{pruneCAs, fmt.Sprintf("CA %s expired", ca.Subject.CommonName)}
		}
	}
	return decision{keep, ""}
}

func lifetime(c *x509.Certificate) time.Duration { return c.NotAfter.Sub(c.NotBefore) }

// due returns the first moment after now at which decide may answer
// otherwise by the passing of time alone, or the zero time if none: the
// timer wakes then, not up to an interval late, which matters with a
// short validity.
func (p policy) due(now time.Time, m *material, injectedSince time.Time) time.Time {
	if len(m.cas) == 0 {
		return time.Time{}
	}
	newest := m.cas[0]
	times := []time.Time{newest.NotAfter.Add(-lifetime(newest) / 3)}
	if leaf := m.leaf(); leaf != nil && m.signer >= 0 {
		times = append(times, leaf.NotAfter)
		if m.signer > 0 {
			times = append(times, leaf.NotAfter.Add(-p.propagation), m.caAdded.Add(p.propagation))
			if !injectedSince.IsZero() {
				times = append(times, injectedSince.Add(p.propagation))
			}
		} else {
			times = append(times, leaf.NotAfter.Add(-lifetime(leaf)/3))
		}
	}
	for _, ca := range m.cas[1:] {
		times = append(times, ca.NotAfter)
	}
	var first time.Time
	for _, t := range times {
		if t.After(now) && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

// apply returns m changed as d says, at now.
func (p policy) apply(now time.Time, m *material, d decision) (*material, error) {
	out := m.clone()
	switch d.change {
	case rotateCA:
		ca, key, err := p.newCA(now)
		if err != nil {
			return nil, err
		}
		// The bundle keeps the current CA and the one that signed the
		// serving certificate, so that every certificate a replica may
		// present stays trusted until it is replaced; older ones go.
		out.cas = []*x509.Certificate{ca}
		for i, old := range m.cas {
			if (i == 0 || i == m.signer) && now.Before(old.NotAfter) {
				out.cas = append(out.cas, old)
			}
		}
		out.caKey, out.caAdded = key, now
		out.findSigner()
		if out.signer >= 0 && now.Before(out.leaf().NotAfter) {
			return out, nil
		}
		// Nothing trusted is served yet (the first CA, or a Secret broken
		// beyond repair): nobody can lose anything, so do not wait.
		return p.reissue(now, out)
	case issue:
		return p.reissue(now, out)
	case pruneCAs:
		kept := out.cas[:1]
		for _, ca := range out.cas[1:] {
			if now.Before(ca.NotAfter) {
				kept = append(kept, ca)
			}
		}
		out.cas = kept
		out.findSigner()
	}
	return out, nil
}

// reissue replaces m's serving pair by one from the newest CA.
func (p policy) reissue(now time.Time, m *material) (*material, error) {
	certPEM, keyPEM, err := p.newServing(now, m.cas[0], m.caKey)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("certs: loading new serving certificate: %w", err)
	}
	m.certPEM, m.keyPEM, m.pair, m.signer = certPEM, keyPEM, &pair, 0
	return m, nil
}
