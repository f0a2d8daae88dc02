package certs

import (
	"bytes"
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readOrCreate reads the Secret. If there is none it creates one: from
// what this replica read last if the Secret was deleted, so that the
// certificates in use stay trusted, or else from a new CA. If another
// replica created it first, that one is read and used.
func (a *Authority) readOrCreate(ctx context.Context) (*corev1.Secret, error) {
	sec, err := a.api.secrets.get(ctx, a.secret.Name)
	if err == nil {
		return sec, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("certs: reading Secret %s: %w", a.secret, err)
	}
	m := a.last
	if m == nil || len(m.cas) == 0 {
		m = &material{signer: -1}
	}
	now := a.clock.Now()
	if d := a.policy.decide(now, m, a.injectedSince); d.change != keep {
		if m, err = a.policy.apply(now, m, d); err != nil {
			return nil, err
		}
	}
	sec = &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.secret.Namespace, Name: a.secret.Name},
		Type:       corev1.SecretTypeTLS,
	}
	if err := fill(sec, m); err != nil {
		return nil, err
	}
	created, err := a.api.secrets.create(ctx, sec)
	if apierrors.IsAlreadyExists(err) {
		if sec, err = a.api.secrets.get(ctx, a.secret.Name); err != nil {
			return nil, fmt.Errorf("certs: reading Secret %s: %w", a.secret, err)
		}
		return sec, nil
	}
	if err != nil {
		return nil, fmt.Errorf("certs: creating Secret %s: %w", a.secret, err)
	}
	a.log.Info("Secret created", "ca", m.cas[0].Subject.CommonName)
	return created, nil
}

// write replaces the Secret's certificates by m's, carrying sec's
// resourceVersion: a conflict means another replica wrote first.
func (a *Authority) write(ctx context.Context, sec *corev1.Secret, m *material) (*corev1.Secret, error) {
	sec = sec.DeepCopy()
	if err := fill(sec, m); err != nil {
		return nil, err
	}
	updated, err := a.api.secrets.update(ctx, sec)
	if err != nil {
		return nil, fmt.Errorf("certs: updating Secret %s: %w", a.secret, err)
	}
	return updated, nil
}

// fill sets sec's data and annotation to m's, keeping other keys.
func fill(sec *corev1.Secret, m *material) error {
	data, added, err := m.encode()
	if err != nil {
		return err
	}
	if sec.Data == nil {
		sec.Data = map[string][]byte{}
	}
	for k, v := range data {
		sec.Data[k] = v
	}
	if sec.Annotations == nil {
		sec.Annotations = map[string]string{}
	}
	sec.Annotations[AnnotationCAAdded] = added
	return nil
}

// serve makes m's serving pair the one presented, if it is usable, and m's
// bundle the one reported.
func (a *Authority) serve(m *material) {
	a.last = m
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bundle = encodeCerts(m.cas)
	leaf := m.leaf()
	if leaf == nil || m.signer < 0 || !now.Before(leaf.NotAfter) {
		return // keep what is served; the rotation repairs the Secret
	}
	if a.cert != nil && bytes.Equal(a.cert.Certificate[0], m.pair.Certificate[0]) {
		return
	}
	a.cert, a.certCA = m.pair, m.cas[m.signer].Raw
	a.log.V(1).Info("Serving certificate loaded", "ca", m.cas[m.signer].Subject.CommonName, "notAfter", leaf.NotAfter)
}

// injectAll injects m's bundle into every target and notes when all of
// them first carried the newest CA.
func (a *Authority) injectAll(ctx context.Context, sec *corev1.Secret, m *material) {
	if len(m.cas) == 0 {
		return // a broken Secret, about to be repaired: nothing to inject
	}
	bundle := encodeCerts(m.cas)
	status := make(map[target]targetStatus, len(a.targets))
	everywhere := true
	for _, t := range a.targets {
		st := a.inject(ctx, t, bundle, sec.ResourceVersion)
		if st.err != nil && !st.absent && ctx.Err() == nil && !sameError(st.err, a.status[t].err) {
			a.log.Error(st.err, "Injecting the CA bundle", "target", t.String())
		}
		status[t] = st
		everywhere = everywhere && !st.blocks(m.cas[0].Raw)
	}
	newest := m.cas[0].Raw
	switch {
	case !everywhere:
		a.injectedSince, a.injectedCA = time.Time{}, nil
	case a.injectedSince.IsZero() || !bytes.Equal(a.injectedCA, newest):
		a.injectedSince, a.injectedCA = a.clock.Now(), newest
	}
	a.mu.Lock()
	a.status = status
	a.mu.Unlock()
}

// sameError reports whether two errors say the same, so that a lasting
// failure is logged once, not at every check.
func sameError(a, b error) bool {
	return a != nil && b != nil && a.Error() == b.Error()
}
