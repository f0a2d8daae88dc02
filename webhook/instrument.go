package webhook

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"time"
)

// readHeaderTimeout bounds how long a connection may take to send a
// request's headers; the API server sends them at once.
const readHeaderTimeout = 10 * time.Second

// instrument wraps the handler of path: its body is bounded, its requests
// are counted and timed, and a panic is answered 500 instead of dropping
// the connection (the admission and conversion handlers answer their own
// panics with a denial or a failed review first).
func (s *Server) instrument(path string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if m := s.opts.metrics; m != nil {
			m.Begin(path)
		}
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opts.log.Error(fmt.Errorf("%v", v), "Webhook handler panicked", "webhook", path, "stack", string(debug.Stack()))
				if rec.code == 0 {
					http.Error(rec, fmt.Sprintf("webhook: handler for %s panicked", path), http.StatusInternalServerError)
				}
			}
			if m := s.opts.metrics; m != nil {
				code := rec.code
				if code == 0 {
					code = http.StatusOK
				}
				m.End(path, code, time.Since(start))
			}
		}()
		r.Body = http.MaxBytesReader(rec, r.Body, s.opts.maxBodyBytes)
		h.ServeHTTP(rec, r)
	})
}

// statusRecorder remembers the status code a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
