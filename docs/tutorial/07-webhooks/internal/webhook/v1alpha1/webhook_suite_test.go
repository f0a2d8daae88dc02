package v1alpha1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/docs/tutorial/07-webhooks/internal/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
	"github.com/steadyctl/steady/webhook"
)

// TestMain shares one control plane among the package's tests, and fails
// the run if a test leaves goroutines behind.
func TestMain(m *testing.M) { testenv.Main(m) }

const (
	// crdDir and webhookManifests are what controller-gen writes, from
	// this package.
	crdDir           = "../../../config/crd/bases"
	webhookManifests = "../../../config/webhook/manifests.yaml"
	// baseDomain is the operator's --base-domain in the tests.
	baseDomain = "sites.example.test"
)

// start runs a manager serving the StaticSite webhooks for t, and
// registers them with the API server as config/webhook/manifests.yaml
// does, but called on loopback and for t's namespace only. The manager
// makes its own certificates, in a Secret of a namespace of its own, and
// puts its CA in the configurations. start returns once the API server
// can call the webhooks: the manager's /readyz says so.
func start(t *testing.T) *operatortest.Env {
	t.Helper()
	scheme, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	// The manager's options are fixed before operatortest makes t's
	// namespace, so the certificates' namespace is one of their own; its
	// generated name also names the (cluster-wide) configurations.
	system := testenv.Shared(t).NewNamespace(t, "staticsite-system-")
	env := operatortest.New(t, func(mgr *manager.Manager) error { return SetupStaticSiteWebhookWithManager(mgr, baseDomain) },
		operatortest.WithCRDFiles(crdDir),
		operatortest.WithManagerOptions(
			manager.WithScheme(scheme),
			manager.WithHealthAddr("127.0.0.1:0"),
			manager.WithWebhookServer(webhook.WithAddr("127.0.0.1:0")),
			manager.WithWebhookCertificates(types.NamespacedName{Namespace: system, Name: "webhook-certs"},
				certs.WithHosts("127.0.0.1"), certs.WithMutatingWebhooks(system), certs.WithValidatingWebhooks(system))))

	var addr string
	testenv.Eventually(t, 10*time.Second, "the webhook server to listen", func() bool {
		addr = env.Manager.WebhookServer().Addr()
		return addr != ""
	})
	if err := register(t, env, system, "https://"+addr); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the manager's /readyz to pass", func() error {
		return ready("http://" + env.Manager.HealthAddr() + "/readyz")
	})
	return env
}

// register creates the webhook configurations of webhookManifests under
// name, each webhook calling url plus its Service's path, and only for
// objects in env's namespace (the control plane is shared with the
// package's other tests); it deletes them when t ends. The CA bundle is
// left empty: the manager's certificates fill it in.
func register(t *testing.T, env *operatortest.Env, name, url string) error {
	t.Helper()
	raw, err := os.ReadFile(webhookManifests)
	if err != nil {
		return err
	}
	ar := env.Clientset.AdmissionregistrationV1()
	// local points a webhook at url plus its Service's path, for t's
	// namespace only.
	local := func(cc *admissionregistrationv1.WebhookClientConfig, scope **metav1.LabelSelector) error {
		if cc.Service == nil || cc.Service.Path == nil {
			return fmt.Errorf("%s: a webhook without a Service path", webhookManifests)
		}
		cc.URL, cc.Service = ptr.To(url+*cc.Service.Path), nil
		*scope = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": env.Namespace}}
		return nil
	}
	docs := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", webhookManifests, err)
		}
		var kind struct{ Kind string }
		if err := yaml.Unmarshal(doc, &kind); err != nil {
			return fmt.Errorf("reading %s: %w", webhookManifests, err)
		}
		switch kind.Kind {
		case "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &c); err != nil {
				return fmt.Errorf("reading %s: %w", webhookManifests, err)
			}
			c.Name = name
			for i := range c.Webhooks {
				if err := local(&c.Webhooks[i].ClientConfig, &c.Webhooks[i].NamespaceSelector); err != nil {
					return err
				}
			}
			if _, err := ar.MutatingWebhookConfigurations().Create(t.Context(), &c, metav1.CreateOptions{}); err != nil {
				return err
			}
			t.Cleanup(func() {
				_ = ar.MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
			})
		case "ValidatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &c); err != nil {
				return fmt.Errorf("reading %s: %w", webhookManifests, err)
			}
			c.Name = name
			for i := range c.Webhooks {
				if err := local(&c.Webhooks[i].ClientConfig, &c.Webhooks[i].NamespaceSelector); err != nil {
					return err
				}
			}
			if _, err := ar.ValidatingWebhookConfigurations().Create(t.Context(), &c, metav1.CreateOptions{}); err != nil {
				return err
			}
			t.Cleanup(func() {
				_ = ar.ValidatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
			})
		}
	}
}

// ready returns nil once url answers 200, else what it answered.
func ready(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
