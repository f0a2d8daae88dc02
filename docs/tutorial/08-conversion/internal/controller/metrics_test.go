package controller

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestDNSRequestsAreCounted checks that the DNS provider's calls are
// counted, successes and failures, on the manager's registry, and that
// the manager's /metrics serves the series beside its own.
func TestDNSRequestsAreCounted(t *testing.T) {
	// Plain HTTP on loopback, for the test to read; in a cluster /metrics
	// is HTTPS for callers the API server authorizes.
	env, provider := start(t, manager.WithMetricsAddr("127.0.0.1:0"), manager.WithInsecureServing(true))
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1.StaticSite](env)
	requests := func(op, result string) float64 {
		return metric(t, env.Manager, "staticsite_dns_requests_total", map[string]string{"operation": op, "result": result})
	}
	if _, err := sites.Create(ctx, newSite(ns, "status")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "a successful ensure counted", func() bool { return requests("ensure", "success") >= 1 })

	provider.FailRemovals(errors.New("the DNS provider is down"))
	if err := sites.Delete(ctx, ns, "status"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "a failed remove counted", func() bool { return requests("remove", "error") >= 1 })
	if n := requests("remove", "success"); n != 0 {
		t.Errorf("%v successful removes counted while the provider is down", n)
	}

	body, err := scrape("http://" + env.Manager.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`staticsite_dns_requests_total{operation="ensure",result="success"}`,
		`staticsite_dns_requests_total{operation="remove",result="error"}`,
		`controller_runtime_reconcile_errors_total{controller="staticsite"}`, // the failed clean-ups
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// scrape returns what url serves, as Prometheus would read it.
func scrape(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return string(body), nil
}
