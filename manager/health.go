package manager

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Check is a health or readiness check: nil means healthy.
type Check func(*http.Request) error

// checks holds the named checks behind /healthz and /readyz.
type checks struct {
	mu      sync.Mutex
	healthz map[string]Check
	readyz  map[string]Check
}

func newChecks() *checks {
	return &checks{healthz: map[string]Check{"ping": func(*http.Request) error { return nil }}, readyz: map[string]Check{}}
}

func (c *checks) addReady(name string, fn func() error) {
	c.readyz[name] = func(*http.Request) error { return fn() }
}

// AddHealthzCheck adds a liveness check served on /healthz.
func (m *Manager) AddHealthzCheck(name string, check Check) error {
	return m.health.add(m.health.healthz, name, check)
}

// AddReadyzCheck adds a readiness check served on /readyz, beside the
// built-in one that passes once every cache has synced.
func (m *Manager) AddReadyzCheck(name string, check Check) error {
	return m.health.add(m.health.readyz, name, check)
}

func (c *checks) add(set map[string]Check, name string, check Check) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if name == "" || check == nil {
		return errors.New("manager: a check needs a name and a function")
	}
	if _, ok := set[name]; ok {
		return fmt.Errorf("manager: a check named %q already exists", name)
	}
	set[name] = check
	return nil
}

// handler serves one set of checks the way kube-apiserver serves its own:
// 200 "ok", or 500 with one line per check; ?verbose lists passing ones too.
func (c *checks) handler(set map[string]Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		names := make([]string, 0, len(set))
		for name := range set {
			names = append(names, name)
		}
		fns := make([]Check, len(names))
		sort.Strings(names)
		for i, name := range names {
			fns[i] = set[name]
		}
		c.mu.Unlock()
		var b strings.Builder
		failed := false
		for i, name := range names {
			if err := fns[i](r); err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: %v\n", name, err)
			} else {
				fmt.Fprintf(&b, "[+]%s ok\n", name)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		switch {
		case failed:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, b.String())
		case r.URL.Query().Has("verbose"):
			fmt.Fprint(w, b.String())
		default:
			fmt.Fprint(w, "ok")
		}
	})
}
