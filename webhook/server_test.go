package webhook_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/serving"
	"github.com/steadyctl/steady/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs s until the test ends and returns an HTTPS client for it.
func start(t *testing.T, s *webhook.Server) *http.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for s.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", s.Ready())
		}
		select {
		case err := <-done:
			t.Fatalf("Start: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func selfSigned(t *testing.T) webhook.Option {
	t.Helper()
	cert, err := serving.SelfSignedCertificate("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return webhook.WithCertificate(cert.GetCertificate)
}

func post(t *testing.T, c *http.Client, url, body string) (int, string, *http.Response) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func TestServerServesBoundsRecoversAndCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	wm, err := metrics.NewWebhook(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := webhook.NewServer(webhook.WithAddr("127.0.0.1:0"), selfSigned(t), webhook.WithMetrics(wm), webhook.WithMaxBodyBytes(64))
	if err != nil {
		t.Fatal(err)
	}
	if s.Ready() == nil {
		t.Fatal("ready before Start")
	}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		w.Write(b)
	})
	for path, h := range map[string]http.Handler{"/echo": echo,
		"/panic": http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })} {
		if err := s.Handle(path, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Handle("/echo", echo); err == nil || !strings.Contains(err.Error(), "already registered at /echo") {
		t.Errorf("second /echo: %v", err)
	}
	c := start(t, s)
	base := "https://" + s.Addr()

	if code, body, resp := post(t, c, base+"/echo", "hello"); code != 200 || body != "hello" || resp.ProtoMajor != 1 {
		t.Errorf("echo: %d %q %s", code, body, resp.Proto)
	}
	if code, _, _ := post(t, c, base+"/echo", strings.Repeat("x", 65)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("65 bytes against a 64-byte bound: %d", code)
	}
	if code, body, _ := post(t, c, base+"/panic", "{}"); code != 500 || !strings.Contains(body, "/panic panicked") {
		t.Errorf("panic: %d %q", code, body)
	}
	if code, body, _ := post(t, c, base+"/echo", "still here"); code != 200 || body != "still here" {
		t.Errorf("after a panic: %d %q", code, body)
	}
	if err := s.Handle("/late", echo); err == nil {
		t.Error("Handle after Start succeeded")
	}

	got := map[string]float64{}
	series := 0
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := mf.GetName()
			for _, l := range m.GetLabel() {
				labels += " " + l.GetValue()
			}
			switch mf.GetName() {
			case "controller_runtime_webhook_requests_total":
				got[labels] = m.GetCounter().GetValue()
			case "controller_runtime_webhook_latency_seconds":
				series++
				got[labels] = float64(m.GetHistogram().GetSampleCount())
			case "controller_runtime_webhook_requests_in_flight":
				got[labels] = m.GetGauge().GetValue()
			}
		}
	}
	want := map[string]float64{
		"controller_runtime_webhook_requests_total 200 /echo":  2,
		"controller_runtime_webhook_requests_total 413 /echo":  1,
		"controller_runtime_webhook_requests_total 500 /panic": 1,
		"controller_runtime_webhook_latency_seconds /echo":     3,
		"controller_runtime_webhook_latency_seconds /panic":    1,
		"controller_runtime_webhook_requests_in_flight /echo":  0,
		"controller_runtime_webhook_requests_in_flight /panic": 0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if series != 2 {
		t.Errorf("latency series: %d, want 2", series)
	}
}

func TestServerHTTP2IsASwitch(t *testing.T) {
	s, err := webhook.NewServer(webhook.WithAddr("127.0.0.1:0"), selfSigned(t), webhook.WithHTTP2(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Handle("/ok", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})); err != nil {
		t.Fatal(err)
	}
	c := start(t, s)
	if _, _, resp := post(t, c, "https://"+s.Addr()+"/ok", ""); resp.ProtoMajor != 2 {
		t.Errorf("WithHTTP2(true) answered over %s", resp.Proto)
	}
}

// A request in flight when the context ends is still answered.
func TestServerShutdownWaitsForRequestsInFlight(t *testing.T) {
	s, err := webhook.NewServer(webhook.WithAddr("127.0.0.1:0"), selfSigned(t))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	if err := s.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "done")
	})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- s.Start(ctx) }()
	for s.Ready() != nil {
		time.Sleep(time.Millisecond)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	var wg sync.WaitGroup
	var body string
	wg.Go(func() {
		resp, err := (&http.Client{Transport: tr}).Post("https://"+s.Addr()+"/slow", "application/json", nil)
		if err != nil {
			t.Error(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
	})
	<-entered
	cancel()
	select {
	case err := <-stopped:
		t.Fatalf("Start returned with a request in flight: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Errorf("Start: %v", err)
	}
	if body != "done" {
		t.Errorf("in-flight request got %q", body)
	}
}

func TestServerBadOptionsAndFiles(t *testing.T) {
	for _, tc := range []struct {
		opts []webhook.Option
		want string
	}{
		{[]webhook.Option{webhook.WithAddr("")}, "WithAddr"},
		{[]webhook.Option{webhook.WithMaxBodyBytes(0)}, "WithMaxBodyBytes(0)"},
		{[]webhook.Option{webhook.WithShutdownTimeout(-time.Second)}, "WithShutdownTimeout"},
		{[]webhook.Option{webhook.WithCertDir("")}, "WithCertDir"},
	} {
		if _, err := webhook.NewServer(tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error naming %s, got %v", tc.want, err)
		}
	}
	dir := t.TempDir()
	s, err := webhook.NewServer(webhook.WithAddr("127.0.0.1:0"), webhook.WithCertDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "WithCertDir(\""+dir+"\")") ||
		!strings.Contains(err.Error(), "tls.crt") {
		t.Errorf("Start without certificate files: %v", err)
	}
}
