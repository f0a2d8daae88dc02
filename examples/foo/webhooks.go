package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/webhook"
)

// Names of the webhooks, as the API server quotes them in a refusal.
const (
	validatingWebhook = "validate.foos.samplecontroller.steady.dev"
	mutatingWebhook   = "default.foos.samplecontroller.steady.dev"
)

// The paths the builder serves Foo's admission webhooks at
// (controller-runtime's), which the configurations name.
var (
	validatePath = builder.ValidatingPath(v1beta1.SchemeGroupVersion.WithKind("Foo"))
	mutatePath   = builder.MutatingPath(v1beta1.SchemeGroupVersion.WithKind("Foo"))
)

// certSecret holds the webhooks' CA and serving certificate, in the
// operator's namespace.
const certSecret = "foo-webhook-certs"

// configName names the story's Validating- and MutatingWebhookConfiguration
// (one of each: the names may be shared). They are cluster-wide; the name
// and their namespaceSelector tie them to one story's namespace.
func configName(ns string) string { return ns + "-foo-webhooks" }

// webhookOptions are the manager options for serving Foo's webhooks on
// loopback, where only an API server on this machine can call them, with
// certificates the operator makes, keeps in a Secret of namespace ns and
// injects into the configurations and the CRD: no cert-manager. The
// health server's /readyz says when all of that is done.
func webhookOptions(ns string) []manager.Option {
	return []manager.Option{
		manager.WithWebhookServer(webhook.WithAddr("127.0.0.1:0")),
		manager.WithWebhookCertificates(types.NamespacedName{Namespace: ns, Name: certSecret},
			certs.WithHosts("127.0.0.1"), // what the URLs below name
			certs.WithValidatingWebhooks(configName(ns)),
			certs.WithMutatingWebhooks(configName(ns)),
			certs.WithCRDs(crdName)),
		manager.WithHealthAddr("127.0.0.1:0"),
	}
}

// setupWebhooks serves Foo's defaulter and validator, and, since v1beta1
// is a conversion.Hub, the conversion of every Foo version at
// builder.ConvertPath.
func setupWebhooks(mgr *manager.Manager) error {
	err := builder.WebhookManagedBy(mgr, &v1beta1.Foo{}).
		WithDefaulter(fooDefaulter{}).
		WithValidator(fooValidator{}).
		Complete()
	if err != nil {
		return err
	}
	for _, path := range []string{validatePath, mutatePath, builder.ConvertPath} {
		if !mgr.WebhookServer().Registered(path) {
			return fmt.Errorf("the builder serves no webhook at %s, which the configurations name", path)
		}
	}
	return nil
}

// registerWebhooks tells the API server where the operator's webhooks
// listen, once they do: the CRD serves v1alpha1 too, converted at
// /convert, and a Validating- and a MutatingWebhookConfiguration send the
// writes of Foos in the story's namespace to the validator and defaulter.
// Their URLs are on loopback and their caBundles empty: the certificates
// fill them in. It returns once the operator's /readyz passes, and a
// function that undoes the registration, leaving the CRD as installCRD
// made it, with no URL of a server that is gone.
func (op *operator) registerWebhooks(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, out io.Writer) (
	unregister func(context.Context) error, err error) {
	srv := op.mgr.WebhookServer()
	err = waitFor(ctx, "the webhook and health servers to listen", func(context.Context) (bool, error) {
		return srv.Addr() != "" && op.mgr.HealthAddr() != "", nil
	})
	if err != nil {
		return nil, err
	}
	base := "https://" + srv.Addr()
	ar := cs.AdmissionregistrationV1()
	unregister = func(ctx context.Context) error {
		return errors.Join(
			client.IgnoreNotFound(ar.ValidatingWebhookConfigurations().Delete(ctx, configName(op.ns), metav1.DeleteOptions{})),
			client.IgnoreNotFound(ar.MutatingWebhookConfigurations().Delete(ctx, configName(op.ns), metav1.DeleteOptions{})),
			updateCRD(ctx, dyn, fooCRD("")))
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, unregister(context.WithoutCancel(ctx)))
		}
	}()

	if err := updateCRD(ctx, dyn, fooCRD(base+builder.ConvertPath)); err != nil {
		return nil, err
	}
	if err := waitServed(ctx, dyn, cs.Discovery(), []string{"v1beta1", "v1alpha1"}); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "CRD %s now serves v1alpha1 too, converted by %s%s\n", crdName, base, builder.ConvertPath)
	vwc, mwc := webhookConfigurations(op.ns, base)
	if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating ValidatingWebhookConfiguration %s: %w", vwc.Name, err)
	}
	if _, err := ar.MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating MutatingWebhookConfiguration %s: %w", mwc.Name, err)
	}
	fmt.Fprintf(out, "webhook configurations %s: validating %s%s, mutating %s%s (caBundle empty, for the certificates to fill)\n",
		vwc.Name, base, validatePath, base, mutatePath)
	if err := waitReady(ctx, "http://"+op.mgr.HealthAddr()+"/readyz"); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "operator ready: /readyz passes, its CA injected into both configurations and the CRD\n")
	return unregister, nil
}

// webhookConfigurations returns the story's configurations: Foos of
// namespace ns written as v1beta1 — or as v1alpha1, converted, since
// matchPolicy is Equivalent — go to the webhooks at base.
func webhookConfigurations(ns, base string) (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration) {
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{v1beta1.GroupName}, APIVersions: []string{"v1beta1"},
			Resources: []string{"foos"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
	// Only the story's namespace: a webhook whose server is down blocks
	// every write it matches (failurePolicy Fail).
	scope := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(base + path)}
	}
	none, fail := ptr.To(admissionregistrationv1.SideEffectClassNone), ptr.To(admissionregistrationv1.Fail)
	name := configName(ns)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: validatingWebhook, ClientConfig: cc(validatePath),
			Rules: rules, NamespaceSelector: scope, SideEffects: none, FailurePolicy: fail, AdmissionReviewVersions: []string{"v1"}}}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: mutatingWebhook, ClientConfig: cc(mutatePath),
			Rules: rules, NamespaceSelector: scope, SideEffects: none, FailurePolicy: fail, AdmissionReviewVersions: []string{"v1"}}}}
	return vwc, mwc
}

// waitReady waits for url, a /readyz, to answer 200.
func waitReady(ctx context.Context, url string) error {
	var last string
	err := waitFor(ctx, "the operator's /readyz", func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil // not listening yet
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		last = strings.TrimSpace(string(body))
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil && last != "" {
		return fmt.Errorf("%w; it said:\n%s", err, last)
	}
	return err
}
