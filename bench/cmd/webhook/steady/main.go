// Command steady is the steady child of the webhook benchmark
// (bench/cmd/webhook): a webhook server as an operator built on steady
// runs it, a manager with its webhook server and the builder's validator
// of Deployments, running the shared logic of package internal/admit. The
// parent builds and runs it; see that command.
package main

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/bench/internal/admit"
	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/webhook"
)

func main() { admit.Main("steady", start) }

// validator is the shared logic as steady's admission.Validator.
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

// start wires the webhook as an operator's main.go does: a manager with
// client-go's scheme (as kubebuilder's main.go registers it, and
// controller-runtime's default), its webhook server on the given
// address and certificate directory (HTTP/2 off, steady's default), no
// metrics or health server, no leader election, logging nowhere; and
// builder.WebhookManagedBy for the validator. No API server is needed:
// nothing is cached, so the manager never calls the address in cfg.
func start(ctx context.Context, o admit.Options) (<-chan error, error) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithLogger(logr.Discard()),
		manager.WithWebhookServer(webhook.WithAddr(net.JoinHostPort(o.Host, strconv.Itoa(o.Port))), webhook.WithCertDir(o.CertDir)))
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	if err := builder.WebhookManagedBy(mgr, &appsv1.Deployment{}).WithValidator(validator{}).Complete(); err != nil {
		return nil, err
	}
	if !mgr.WebhookServer().Registered(admit.Path) {
		return nil, fmt.Errorf("the builder did not register %s", admit.Path)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return done, nil
}
