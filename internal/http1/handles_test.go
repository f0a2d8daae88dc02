package http1

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestHandles(t *testing.T) {
	rt, _ := New(&http.Transport{}, Options{})
	for _, tc := range []struct {
		method, url string
		body        io.Reader
		header      string
		want        bool
	}{
		{"GET", "https://h/api/v1/namespaces/a/configmaps/b", nil, "", true},
		{"PUT", "https://h/api/v1/namespaces/a/configmaps/b", strings.NewReader("x"), "", true},
		{"PATCH", "http://h:8080/apis/g/v1/foos/b", strings.NewReader("x"), "", true},
		{"GET", "https://h/api/v1/configmaps?allowWatchBookmarks=true&limit=500", nil, "", true},
		{"GET", "https://h/api/v1/configmaps?watch=false", nil, "", true},
		{"GET", "https://h/api/v1/configmaps?watch=true", nil, "", false},
		{"GET", "https://h/api/v1/configmaps?resourceVersion=1&watch=1&allowWatchBookmarks=true", nil, "", false},
		{"GET", "https://h/api/v1/watch/configmaps", nil, "", false},
		{"GET", "https://h/api/v1/namespaces/a/pods/p/log?follow=true", nil, "", false},
		{"GET", "https://h/api/v1/namespaces/a/pods/p/exec", nil, "Upgrade", false},
		{"POST", "https://h/x", nil, "Expect", false},
		{"CONNECT", "https://h/x", nil, "", false},
		{"GET", "ftp://h/x", nil, "", false},
		{"GET", "https:///no-host", nil, "", false},
		{"PUT", "https://h/big", strings.NewReader(strings.Repeat("b", 200<<10)), "", false},
	} {
		req, err := http.NewRequest(tc.method, tc.url, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if tc.header != "" {
			req.Header.Set(tc.header, "x")
		}
		if got := rt.handles(req); got != tc.want {
			t.Errorf("handles(%s %s, header %q) = %v, want %v", tc.method, tc.url, tc.header, got, tc.want)
		}
	}
}
