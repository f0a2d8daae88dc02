package serving

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// recheck is how often, at most, a Certificate looks at its files: a
// handshake costs two stat calls at most once a second.
const recheck = time.Second

// Certificate is a server's TLS certificate. One loaded from files is
// reloaded, on the first handshake after a change, when the files' size
// or modification time changes; if the new pair cannot be loaded (a
// rotation caught half-written, say) the previous one is kept and the
// error logged, and loading is tried again at the next change.
type Certificate struct {
	certFile, keyFile string
	log               logr.Logger
	clock             clock.PassiveClock

	mu      sync.Mutex
	current *tls.Certificate
	stamp   [2]fileStamp
	checked time.Time
}

type fileStamp struct {
	size    int64
	modTime time.Time
}

// LoadCertificate loads a PEM certificate (chain) and key from files. An
// error names the file that could not be read or the pair that does not
// match.
// Of opts, only WithLogger (where reload failures go) and WithClock apply.
func LoadCertificate(certFile, keyFile string, opts ...Option) (*Certificate, error) {
	o := newOptions(opts)
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("serving: a certificate needs both a certificate file and a key file (got %q and %q)", certFile, keyFile)
	}
	c := o.clock
	cert := &Certificate{certFile: certFile, keyFile: keyFile, log: o.log, clock: c}
	if err := cert.load(); err != nil {
		return nil, err
	}
	cert.checked = c.Now()
	return cert, nil
}

// load reads the files, and replaces the current certificate if they hold
// a valid pair; c.mu is held or c is not yet shared.
func (c *Certificate) load() error {
	var stamp [2]fileStamp
	for i, name := range []string{c.certFile, c.keyFile} {
		fi, err := os.Stat(name)
		if err != nil {
			return fmt.Errorf("serving: reading TLS file: %w", err)
		}
		stamp[i] = fileStamp{fi.Size(), fi.ModTime()}
	}
	if c.current != nil && stamp == c.stamp {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("serving: loading TLS certificate %s with key %s: %w", c.certFile, c.keyFile, err)
	}
	c.current, c.stamp = &pair, stamp
	return nil
}

// GetCertificate returns the current certificate, reloading it first if
// its files changed; it is a tls.Config.GetCertificate.
func (c *Certificate) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.certFile != "" {
		if now := c.clock.Now(); now.Sub(c.checked) >= recheck {
			c.checked = now
			if err := c.load(); err != nil {
				c.log.Error(err, "Keeping the previous TLS certificate")
			}
		}
	}
	return c.current, nil
}

// SelfSignedCertificate makes a certificate for hosts (names or IP
// addresses; "localhost" when none), signed by itself and valid for a
// year. Clients cannot verify it, so it only encrypts; serve a certificate
// from files where a scraper verifies its server.
func SelfSignedCertificate(hosts ...string) (*Certificate, error) {
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("serving: self-signed certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("serving: self-signed certificate serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: hosts[0]},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("serving: self-signing a certificate for %v: %w", hosts, err)
	}
	return &Certificate{current: &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, clock: clock.RealClock{}}, nil
}

// TLSConfig returns a server configuration that serves cert. With a
// non-empty clientCAFile, clients may also authenticate with a certificate
// that one of its CAs signed (a Filter then takes the certificate's common
// name as the user and its organizations as groups); others still use a
// bearer token.
func TLSConfig(cert *Certificate, clientCAFile string) (*tls.Config, error) {
	if cert == nil {
		return nil, fmt.Errorf("serving: TLSConfig needs a certificate")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: cert.GetCertificate}
	if clientCAFile != "" {
		pem, err := os.ReadFile(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("serving: reading client CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("serving: client CA file %s holds no PEM certificate", clientCAFile)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	return cfg, nil
}
