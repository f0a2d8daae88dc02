// Command controller-runtime is the controller-runtime child of the
// webhook benchmark (bench/cmd/webhook): a webhook server as a
// controller-runtime operator runs it, a manager with its webhook server
// and the builder's validator of Deployments, running the shared logic of
// package internal/admit. The parent builds and runs it; see that command.
package main

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/steadyctl/steady/bench/internal/admit"
)

func main() { admit.Main("controller-runtime", start) }

// validator is the shared logic as controller-runtime's
// admission.Validator.
type validator struct{}

func (validator) ValidateCreate(_ context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	return admit.Validate(d)
}

func (validator) ValidateUpdate(_ context.Context, old, d *appsv1.Deployment) (admission.Warnings, error) {
	return admit.ValidateUpdate(old, d)
}

func (validator) ValidateDelete(context.Context, *appsv1.Deployment) (admission.Warnings, error) {
	return nil, nil
}

// start wires the webhook as kubebuilder's main.go does: a manager with
// the default scheme (client-go's), a webhook server on the given address
// and certificate directory with HTTP/2 off (the scaffold's TLSOpts), the
// metrics server and health probes off, no leader election, logging
// nowhere; and ctrl.NewWebhookManagedBy for the validator. No API server
// is needed: nothing is cached, so the manager never calls the address in
// cfg.
func start(ctx context.Context, o admit.Options) (<-chan error, error) {
	ctrl.SetLogger(logr.Discard())
	disableHTTP2 := func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: []func(*tls.Config){disableHTTP2},
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &appsv1.Deployment{}).WithValidator(validator{}).Complete(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return done, nil
}
