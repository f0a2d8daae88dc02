package e2e

import (
	"net/http"
	"sync"
	"sync/atomic"
)

// Counter counts every HTTP request made through the transports it wraps:
// lists, watches, gets, updates and discovery alike.
type Counter struct {
	total atomic.Int64

	mu     sync.Mutex
	byKind map[string]int64 // "GET", "WATCH", "PUT", …
	byType map[string]int64 // response Content-Type
}

// Wrap wraps rt; pass it to rest.Config.Wrap.
func (c *Counter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{c: c, rt: rt}
}

type countingTransport struct {
	c  *Counter
	rt http.RoundTripper
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := req.Method
	if kind == http.MethodGet && req.URL.Query().Get("watch") == "true" {
		kind = "WATCH"
	}
	resp, err := t.rt.RoundTrip(req)
	ctype := "error"
	if err == nil {
		ctype = resp.Header.Get("Content-Type")
	}
	t.c.total.Add(1)
	t.c.mu.Lock()
	if t.c.byKind == nil {
		t.c.byKind, t.c.byType = make(map[string]int64), make(map[string]int64)
	}
	t.c.byKind[kind]++
	t.c.byType[ctype]++
	t.c.mu.Unlock()
	return resp, err
}

// Requests is a snapshot of a Counter.
type Requests struct {
	Total int64 `json:"total"`
	// ByKind counts requests by method, with watches apart (WATCH).
	ByKind map[string]int64 `json:"by_kind"`
	// ByContentType counts responses by Content-Type, to show which wire
	// format each framework spoke.
	ByContentType map[string]int64 `json:"by_content_type"`
}

// Snapshot returns the counts so far.
func (c *Counter) Snapshot() Requests {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := Requests{Total: c.total.Load(), ByKind: make(map[string]int64), ByContentType: make(map[string]int64)}
	for k, v := range c.byKind {
		r.ByKind[k] = v
	}
	for k, v := range c.byType {
		r.ByContentType[k] = v
	}
	return r
}
