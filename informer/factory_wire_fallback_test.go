package informer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// A server that will not watch in protobuf (kube-apiserver always does
// for built-in kinds; an aggregated API server may not) answers 406: the
// typed ListerWatcher watches through client-go, which takes the JSON the
// server sends, and asks for protobuf no more.
func TestTypedLWFallsBackWhenProtobufIsRefused(t *testing.T) {
	var protobufAsks atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == runtime.ContentTypeProtobuf {
			protobufAsks.Add(1)
			w.Header().Set("Content-Type", runtime.ContentTypeJSON)
			w.WriteHeader(http.StatusNotAcceptable)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}`)
			return
		}
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
		fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}}`)
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf}}
	lw := wireLW(t, cfg, wireCases[0], "ns")
	if lw.wire == nil {
		t.Fatal("no protobuf decoding for a protobuf config")
	}
	for range 2 {
		w, err := lw.Watch(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		evs := drainWatch(w)
		if len(evs) != 1 || evs[0].Type != watch.Added || evs[0].Object.(*corev1.ConfigMap).Name != "a" {
			t.Fatalf("events %v, want ADDED a", evs)
		}
	}
	if n := protobufAsks.Load(); n != 1 || !lw.wire.refused.Load() {
		t.Fatalf("asked for protobuf %d times (refused %v), want once", n, lw.wire.refused.Load())
	}
}

func drainWatch(w watch.Interface) []watch.Event {
	var out []watch.Event
	for ev := range w.ResultChan() {
		out = append(out, ev)
	}
	return out
}
