package main

import (
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// traffic counts what a replica receives from the API server, per resource
// and verb ("configmaps WATCH", "leases PUT", "other GET"): requests, and
// bytes of response bodies as the replica's decoders read them. Watches are
// counted as their events arrive, so a snapshot taken while they run is up
// to date. The bodies are counted after the HTTP transport has undone any
// gzip (kube-apiserver compresses large lists): it is what the replica
// decodes, which is what sharding saves. Headers are not counted.
type traffic struct {
	mu    sync.Mutex
	flows map[string]*flow
}

type flow struct{ requests, bytes atomic.Int64 }

// wrap wraps rt; pass it to rest.Config.Wrap.
func (t *traffic) wrap(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{t: t, rt: rt}
}

func (t *traffic) flow(key string) *flow {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flows == nil {
		t.flows = make(map[string]*flow)
	}
	f := t.flows[key]
	if f == nil {
		f = new(flow)
		t.flows[key] = f
	}
	return f
}

type countingTransport struct {
	t  *traffic
	rt http.RoundTripper
}

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f := c.t.flow(flowKey(req))
	f.requests.Add(1)
	resp, err := c.rt.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &f.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// Flow is a snapshot of one resource and verb's requests and bytes.
type Flow struct {
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
}

// Traffic is a snapshot of a traffic counter, by "resource VERB".
type Traffic map[string]Flow

func (t *traffic) snapshot() Traffic {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := make(Traffic, len(t.flows))
	for k, f := range t.flows {
		s[k] = Flow{Requests: f.requests.Load(), Bytes: f.bytes.Load()}
	}
	return s
}

// Total sums the flows whose resource is resource, or all of them for "".
func (t Traffic) Total(resource string) Flow {
	var sum Flow
	for k, f := range t {
		if resource == "" || strings.HasPrefix(k, resource+" ") {
			sum.Requests += f.Requests
			sum.Bytes += f.Bytes
		}
	}
	return sum
}

// Sum sums the flows of keys.
func (t Traffic) Sum(keys ...string) Flow {
	var sum Flow
	for _, k := range keys {
		sum.Requests += t[k].Requests
		sum.Bytes += t[k].Bytes
	}
	return sum
}

// Since is t minus an earlier snapshot of the same counter.
func (t Traffic) Since(earlier Traffic) Traffic {
	d := make(Traffic, len(t))
	for k, f := range t {
		e := earlier[k]
		d[k] = Flow{Requests: f.Requests - e.Requests, Bytes: f.Bytes - e.Bytes}
	}
	return d
}

// Keys are the flows' keys, sorted.
func (t Traffic) Keys() []string { return slices.Sorted(maps.Keys(t)) }

// flowKey is req's resource and verb: LIST and WATCH for reads of a
// collection, GET for one object, and the method for writes; requests
// outside the resource API (discovery, /version) are "other".
func flowKey(req *http.Request) string {
	resource, named := parsePath(req.URL.Path)
	verb := req.Method
	if verb == http.MethodGet && !named {
		verb = "LIST"
		if req.URL.Query().Get("watch") == "true" {
			verb = "WATCH"
		}
	}
	return resource + " " + verb
}

// parsePath returns the resource a request path names ("other" for none)
// and whether it names one object of it: /api/v1/namespaces/ns/configmaps
// is configmaps, /apis/coordination.k8s.io/v1/namespaces/ns/leases/x one
// lease, /api/v1/namespaces/ns a namespace.
func parsePath(path string) (resource string, named bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(segs) > 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) > 3 && segs[0] == "apis":
		rest = segs[3:]
	default:
		return "other", false
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	return rest[0], len(rest) > 1
}
