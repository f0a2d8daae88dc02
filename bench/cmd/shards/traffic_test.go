package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestFlowKey(t *testing.T) {
	for url, want := range map[string]string{
		"/api/v1/namespaces/ns/configmaps":                              "configmaps LIST",
		"/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5": "configmaps WATCH",
		"/api/v1/namespaces/ns/configmaps/cm-1":                         "configmaps GET",
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases?watch=true":  "leases WATCH",
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases/ring-a":      "leases GET",
		"/api/v1/namespaces/ns":                                         "namespaces GET",
		"/api/v1/namespaces":                                            "namespaces LIST",
		"/api/v1/nodes/n1/status":                                       "nodes GET",
		"/apis/apps/v1/deployments":                                     "deployments LIST",
		"/apis":                                                         "other LIST",
		"/version":                                                      "other LIST",
		"/api/v1":                                                       "other LIST",
	} {
		req := httptest.NewRequest(http.MethodGet, url, nil)
		if got := flowKey(req); got != want {
			t.Errorf("flowKey(GET %s) = %q, want %q", url, got, want)
		}
	}
	req := httptest.NewRequest(http.MethodPut, "/api/v1/namespaces/ns/configmaps/cm-1", nil)
	if got := flowKey(req); got != "configmaps PUT" {
		t.Errorf("flowKey(PUT a ConfigMap) = %q, want configmaps PUT", got)
	}
}

// TestTrafficCountsBodies checks that the transport counts every request
// and the body bytes the caller reads, also of a response read in pieces
// (a watch), per resource and verb.
func TestTrafficCountsBodies(t *testing.T) {
	body := strings.Repeat("y", 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	defer srv.Close()
	var tr traffic
	c := &http.Client{Transport: tr.wrap(http.DefaultTransport)}
	get := func(path string, read int64) {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 7) // small reads, as a watch decoder's
		for n := int64(0); n < read; {
			k, err := resp.Body.Read(buf[:min(int64(len(buf)), read-n)])
			n += int64(k)
			if err != nil {
				break
			}
		}
	}
	get("/api/v1/namespaces/ns/configmaps", 1<<20)
	get("/api/v1/namespaces/ns/configmaps", 1<<20)
	before := tr.snapshot()
	get("/api/v1/namespaces/ns/configmaps?watch=true", 1234)

	s := tr.snapshot()
	if got, want := s["configmaps LIST"], (Flow{Requests: 2, Bytes: 20_000}); got != want {
		t.Errorf("configmaps LIST = %+v, want %+v", got, want)
	}
	if got, want := s["configmaps WATCH"], (Flow{Requests: 1, Bytes: 1234}); got != want {
		t.Errorf("configmaps WATCH (read in part) = %+v, want %+v", got, want)
	}
	if got, want := s.Total("configmaps"), (Flow{Requests: 3, Bytes: 21_234}); got != want {
		t.Errorf("Total(configmaps) = %+v, want %+v", got, want)
	}
	if got := s.Total("config"); got != (Flow{}) {
		t.Errorf("Total(config) = %+v, want nothing: resources match whole", got)
	}
	if got, want := s.Since(before).Sum("configmaps LIST", "configmaps WATCH"), (Flow{Requests: 1, Bytes: 1234}); got != want {
		t.Errorf("Since(before the watch).Sum = %+v, want %+v", got, want)
	}
}
