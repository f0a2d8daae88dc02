package dns

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Instrumented returns p with each of its calls counted in
// staticsite_dns_requests_total{operation,result}, a counter it registers
// on reg: operation is "ensure" or "remove", result "success" or
// "error". Registering it twice on one registry is an error.
func Instrumented(p Provider, reg prometheus.Registerer) (Provider, error) {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "staticsite_dns_requests_total",
		Help: "Requests to the DNS provider, by operation (ensure, remove) and result (success, error).",
	}, []string{"operation", "result"})
	if err := reg.Register(requests); err != nil {
		return nil, fmt.Errorf("registering staticsite_dns_requests_total: %w", err)
	}
	// Every series exists from the start, at 0, so that a query of the
	// error rate has something to compute before the first error.
	for _, op := range []string{"ensure", "remove"} {
		for _, result := range []string{"success", "error"} {
			requests.WithLabelValues(op, result)
		}
	}
	return &instrumented{p: p, requests: requests}, nil
}

// instrumented counts the calls of a Provider.
type instrumented struct {
	p        Provider
	requests *prometheus.CounterVec
}

func (i *instrumented) Ensure(ctx context.Context, name, target string) error {
	err := i.p.Ensure(ctx, name, target)
	i.count("ensure", err)
	return err
}

func (i *instrumented) Remove(ctx context.Context, name string) error {
	err := i.p.Remove(ctx, name)
	i.count("remove", err)
	return err
}

func (i *instrumented) count(op string, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	i.requests.WithLabelValues(op, result).Inc()
}
