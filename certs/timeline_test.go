package certs

import (
	"bytes"
	"crypto/x509"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// snapshot is what was written, or injected, at a time.
type snapshot struct {
	at time.Time
	m  *material
}

// asOf returns the last snapshot taken at or before t, or nil.
func asOf(h []snapshot, t time.Time) *material {
	var m *material
	for _, s := range h {
		if s.at.After(t) {
			break
		}
		m = s.m
	}
	return m
}

// event is a change made to the Secret, and when.
type event struct {
	at     time.Time
	change change
}

// runTimeline steps a fake clock through four validities, checking as an
// Authority does on every timer tick (read, inject, decide, write), and
// returns the Secret's history, the history of the bundle in the targets
// (empty when injection is blocked) and the changes made.
func runTimeline(t *testing.T, p policy, blocked bool) (secrets, injected []snapshot, events []event) {
	t.Helper()
	clk := clocktesting.NewFakeClock(epoch)
	sec := &corev1.Secret{}
	m := parseData(nil, nil)
	var injectedSince time.Time
	for end := epoch.Add(4 * p.validity); clk.Now().Before(end); {
		now := clk.Now()
		for range 4 {
			if !blocked && len(m.cas) > 0 {
				if last := asOf(injected, now); last == nil || !bytes.Equal(encodeCerts(last.cas), encodeCerts(m.cas)) {
					injected = append(injected, snapshot{now, m})
				}
				if last := asOf(injected, now); injectedSince.IsZero() || !asOf(injected, injectedSince).cas[0].Equal(last.cas[0]) {
					injectedSince = now
				}
			}
			d := p.decide(now, m, injectedSince)
			if d.change == keep {
				break
			}
			next, err := p.apply(now, m, d)
			if err != nil {
				t.Fatal(err)
			}
			if err := fill(sec, next); err != nil {
				t.Fatal(err)
			}
			m = parseData(sec.Data, sec.Annotations)
			secrets = append(secrets, snapshot{now, m})
			events = append(events, event{now, d.change})
		}
		// Wake as Start does: after the interval, or when a rule comes due.
		next := now.Add(p.interval)
		if due := p.due(now, m, injectedSince); !due.IsZero() && due.Before(next) {
			next = due.Add(10 * time.Millisecond)
		}
		clk.SetTime(next)
	}
	return secrets, injected, events
}

// Over four validities, a replica that reads the Secret late and an API
// server that sees the injected bundle late, each by up to nine tenths of
// the propagation delay, never disagree: every certificate presented
// verifies against the bundle trusted. CAs rotate every two thirds of the
// validity and the serving certificate follows a propagation delay later.
func TestTimeline(t *testing.T) {
	for _, v := range []time.Duration{15 * time.Second, time.Hour} {
		t.Run(v.String(), func(t *testing.T) {
			p := newPolicy(v, []string{"127.0.0.1"})
			secrets, injected, events := runTimeline(t, p, false)
			lags := []time.Duration{0, p.propagation / 2, p.propagation * 9 / 10}
			checks := 0
			for now := epoch; now.Before(epoch.Add(4 * v)); now = now.Add(p.interval) {
				for _, lagR := range lags {
					for _, lagA := range lags {
						served, trusted := asOf(secrets, now.Add(-lagR)), asOf(injected, now.Add(-lagA))
						if served == nil || trusted == nil {
							continue // starting: not Ready yet
						}
						pool := x509.NewCertPool()
						for _, c := range trusted.cas {
							pool.AddCert(c)
						}
						if _, err := served.leaf().Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: pool, CurrentTime: now}); err != nil {
							t.Fatalf("at %v (replica %v late, API server %v late): %v", now.Sub(epoch), lagR, lagA, err)
						}
						checks++
					}
				}
			}
			var rotations, followed, issues int
			var caAdded time.Time
			for _, e := range events {
				switch e.change {
				case rotateCA:
					rotations++
					caAdded = e.at
					if e.at.Before(epoch.Add(4*v - p.propagation)) {
						followed++ // in time for its certificate within the run
					}
					if prev := asOf(secrets, e.at.Add(-time.Nanosecond)); prev != nil {
						third := prev.cas[0].NotAfter.Add(-lifetime(prev.cas[0]) / 3)
						if late := e.at.Sub(third); late < 0 || late > 20*time.Millisecond {
							t.Errorf("CA rotated %v after a third of the previous one's validity was left, want at once", late)
						}
					}
				case issue:
					issues++
					if wait := e.at.Sub(caAdded); wait < p.propagation || wait > p.propagation+20*time.Millisecond {
						t.Errorf("serving certificate issued %v after its CA, want %v at once", wait, p.propagation)
					}
				}
			}
			// The first CA and certificate come in one write; then each
			// CA is followed by one certificate.
			if rotations < 6 || issues != followed-1 {
				t.Fatalf("%d CA rotations (%d in time for a certificate) and %d certificates issued in four validities, want at least 6 and one per CA after the first", rotations, followed, issues)
			}
			t.Logf("validity %v: %d CA rotations, %d certificates issued, %d checks of trust", v, rotations, issues, checks)
		})
	}
}

// When the bundle cannot be injected, the serving certificate does not
// move to a new CA until it must: then it is replaced before it expires.
func TestTimelineBlocked(t *testing.T) {
	p := newPolicy(time.Hour, []string{"127.0.0.1"})
	secrets, _, _ := runTimeline(t, p, true)
	for now := epoch; now.Before(epoch.Add(4 * time.Hour)); now = now.Add(p.interval) {
		leaf := asOf(secrets, now).leaf()
		if !now.Before(leaf.NotAfter) {
			t.Fatalf("at %v the Secret holds a certificate that expired at %v", now.Sub(epoch), leaf.NotAfter.Sub(epoch))
		}
		if left := leaf.NotAfter.Sub(now); asOf(secrets, now).signer > 0 && left < p.propagation-p.interval {
			t.Fatalf("at %v the serving certificate has %v left", now.Sub(epoch), left)
		}
	}
	if ip := asOf(secrets, epoch).leaf().IPAddresses; len(ip) != 1 || !ip[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("IP SANs %v", ip)
	}
}
