package manager_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/manager"
)

// noServer is a config for managers that read no kind, so never call it.
var noServer = &rest.Config{Host: "https://kubernetes.invalid"}

func TestPprofServedOnItsOwnAddress(t *testing.T) {
	m, err := manager.New(noServer, manager.WithScheme(clientgoscheme.Scheme), manager.WithPprofAddr("127.0.0.1:0"), manager.WithMetricsAddr("127.0.0.1:0"), manager.WithInsecureServing(true))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	<-m.Elected() // Start has opened the listeners
	pprof := "http://" + m.PprofAddr()
	if m.PprofAddr() == "" || strings.HasSuffix(m.PprofAddr(), ":0") || m.PprofAddr() == m.MetricsAddr() {
		t.Fatalf("PprofAddr %q, MetricsAddr %q: want a port of its own", m.PprofAddr(), m.MetricsAddr())
	}
	if code, body := get(t, pprof+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Fatalf("/debug/pprof/: %d %.200s", code, body)
	}
	if code, body := get(t, pprof+"/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Fatalf("/debug/pprof/heap?debug=1: %d %.200s", code, body)
	}
	if code, _ := get(t, "http://"+m.MetricsAddr()+"/debug/pprof/"); code != http.StatusNotFound {
		t.Fatalf("the metrics server answers /debug/pprof/ with %d, want 404", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(pprof + "/debug/pprof/"); err == nil {
		resp.Body.Close()
		t.Fatalf("/debug/pprof/ still answers %s after Start returned", resp.Status)
	}
}

func TestPprofOffByDefault(t *testing.T) {
	m, err := manager.New(noServer, manager.WithScheme(clientgoscheme.Scheme), manager.WithMetricsAddr("127.0.0.1:0"), manager.WithHealthAddr("127.0.0.1:0"), manager.WithInsecureServing(true))
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	<-m.Elected()
	if a := m.PprofAddr(); a != "" {
		t.Fatalf("PprofAddr %q without WithPprofAddr", a)
	}
	for _, addr := range []string{m.MetricsAddr(), m.HealthAddr()} {
		if code, _ := get(t, "http://"+addr+"/debug/pprof/"); code != http.StatusNotFound {
			t.Fatalf("%s answers /debug/pprof/ with %d, want 404", addr, code)
		}
	}
}

func TestPprofBadAddressIsAnErrorNamingTheOption(t *testing.T) {
	if _, err := manager.New(noServer, manager.WithScheme(clientgoscheme.Scheme), manager.WithPprofAddr("localhost")); err == nil || !strings.Contains(err.Error(), `WithPprofAddr("localhost")`) {
		t.Fatalf("an address without a port: New returned %v", err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	m, err := manager.New(noServer, manager.WithScheme(clientgoscheme.Scheme), manager.WithHealthAddr("127.0.0.1:0"), manager.WithPprofAddr(taken.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	err = m.Start(context.Background()) // returns at once: the port is taken
	if want := `WithPprofAddr("` + taken.Addr().String() + `")`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a taken port: Start returned %v, want an error naming %s", err, want)
	}
}
