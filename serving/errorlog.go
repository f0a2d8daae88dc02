package serving

import (
	"log"
	"strings"

	"github.com/go-logr/logr"
)

// ErrorLog is an http.Server's ErrorLog that routes the server's own
// complaints (failed TLS handshakes, a client speaking plain HTTP to a TLS
// port) to l at V(1): they are the clients' faults, not the operator's.
func ErrorLog(l logr.Logger) *log.Logger {
	return log.New(logWriter{l.V(1)}, "", 0)
}

type logWriter struct{ l logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Info("HTTP server", "message", strings.TrimSpace(string(p)))
	return len(p), nil
}
