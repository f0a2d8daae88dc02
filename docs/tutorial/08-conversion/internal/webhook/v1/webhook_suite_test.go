package v1

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/docs/tutorial/08-conversion/internal/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
	"github.com/steadyctl/steady/webhook"
)

// TestMain shares one control plane among the package's tests, and fails
// the run if a test leaves goroutines behind.
func TestMain(m *testing.M) { testenv.Main(m) }

const (
	// crdDir and webhookManifests are what controller-gen writes, and
	// conversionPatch the kustomize patch that turns conversion on; all
	// from this package.
	crdDir           = "../../../config/crd/bases"
	conversionPatch  = "../../../config/crd/patches/webhook_in_staticsites.yaml"
	webhookManifests = "../../../config/webhook/manifests.yaml"
	// baseDomain is the operator's --base-domain in the tests.
	baseDomain = "sites.example.test"
)

// start runs a manager serving the StaticSite webhooks for t, and
// registers them with the API server as config/webhook/manifests.yaml and
// config/crd/patches do, but called on loopback, and the admission
// webhooks for t's namespace only. The manager makes its own
// certificates, in a Secret of a namespace of its own, and puts its CA in
// the configurations and the CRD. start returns once the API server can
// call the webhooks: the manager's /readyz says so.
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
				certs.WithHosts("127.0.0.1"), certs.WithMutatingWebhooks(system), certs.WithValidatingWebhooks(system),
				certs.WithCRDs(crdName))))

	var addr string
	testenv.Eventually(t, 10*time.Second, "the webhook server to listen", func() bool {
		addr = env.Manager.WebhookServer().Addr()
		return addr != ""
	})
	if err := register(t, env, system, "https://"+addr); err != nil {
		t.Fatal(err)
	}
	if err := convertThrough(t, env, "https://"+addr); err != nil {
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

// crdName is the name of StaticSite's CRD.
const crdName = "staticsites.tutorial.steady.dev"

// convertThrough makes the API server convert StaticSites through the
// webhook at url plus the path of conversionPatch's Service: it applies
// conversionPatch to the CRD as a merge patch, the Service replaced by
// the URL. (The CRD stays so when t ends: the next test's start sets its
// own URL.)
func convertThrough(t *testing.T, env *operatortest.Env, url string) error {
	t.Helper()
	raw, err := os.ReadFile(conversionPatch)
	if err != nil {
		return err
	}
	var patch map[string]any
	if err := yaml.Unmarshal(raw, &patch); err != nil {
		return fmt.Errorf("reading %s: %w", conversionPatch, err)
	}
	path, _, err := unstructured.NestedString(patch, "spec", "conversion", "webhook", "clientConfig", "service", "path")
	if err != nil || path == "" {
		return fmt.Errorf("%s: no spec.conversion.webhook.clientConfig.service.path (%v)", conversionPatch, err)
	}
	// In a merge patch null deletes: the Service goes, the URL comes.
	if err := unstructured.SetNestedField(patch, map[string]any{"url": url + path, "service": nil},
		"spec", "conversion", "webhook", "clientConfig"); err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"spec": patch["spec"]})
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	_, err = crds.Patch(t.Context(), crdName, types.MergePatchType, body, metav1.PatchOptions{})
	return err
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
