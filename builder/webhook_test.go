package builder_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/webhook"
)

// widgetEnv is an operator serving Widget webhooks with certificates of
// its own, registered with the test's control plane on loopback.
type widgetEnv struct {
	group, ns string
	rules     *widgetRules
	v1, v2    dynamic.ResourceInterface
	warnings  *warningLog
	validity  time.Duration // of the certificates; 0 for the default
	mgrs      []*manager.Manager
	ready     time.Duration // from Start to /readyz passing
}

// warningLog collects the warnings the API server passes on.
type warningLog struct {
	mu   sync.Mutex
	list []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warningLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// startWidgets runs replicas managers serving Widget webhooks with
// certificates of their own from one Secret, then registers them: a CRD
// converting through the first replica's /convert, a validating and a
// mutating configuration scoped to the test's namespace with one webhook
// per replica, all without a CA bundle, which the certificates inject. It
// returns once every replica's /readyz passes.
func startWidgets(t *testing.T, validity time.Duration, replicas int) *widgetEnv {
	t.Helper()
	env := testkit.Env(t)
	we := &widgetEnv{ns: testkit.Namespace(t, "webhook-"), group: fmt.Sprintf("w%08x.webhook.steady.test", rand.Uint32()),
		rules: &widgetRules{}, warnings: &warningLog{}, validity: validity}
	started := time.Now()
	var urls []string
	for range replicas {
		urls = append(urls, "https://"+we.startReplica(t).WebhookServer().Addr())
	}
	group, ns := we.group, we.ns
	ctx := context.Background()
	crdName := "widgets." + group
	if err := env.InstallCRDs(ctx, widgetCRD(group, urls[0]+builder.ConvertPath)); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(env.Config)
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	t.Cleanup(func() { _ = dyn.Resource(crdGVR).Delete(context.Background(), crdName, metav1.DeleteOptions{}) })

	rule := admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE", "DELETE"},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
	}
	mutating := rule
	mutating.Operations = []admissionregistrationv1.OperationType{"CREATE", "UPDATE"}
	scope := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	none := admissionregistrationv1.SideEffectClassNone
	fail := ptr.To(admissionregistrationv1.Fail)
	gvk := schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}
	path := map[string]string{"validate": builder.ValidatingPath(gvk), "mutate": builder.MutatingPath(gvk)}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: group}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: group}}
	for i, url := range urls {
		vwc.Webhooks = append(vwc.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: fmt.Sprintf("validate-%d.%s", i, group),
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + path["validate"])},
			Rules:        []admissionregistrationv1.RuleWithOperations{rule}, NamespaceSelector: scope, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"}, FailurePolicy: fail})
		mwc.Webhooks = append(mwc.Webhooks, admissionregistrationv1.MutatingWebhook{Name: fmt.Sprintf("mutate-%d.%s", i, group),
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + path["mutate"])},
			Rules:        []admissionregistrationv1.RuleWithOperations{mutating}, NamespaceSelector: scope, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"}, FailurePolicy: fail})
	}
	ar := env.Clientset.AdmissionregistrationV1()
	if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ar.ValidatingWebhookConfigurations().Delete(context.Background(), group, metav1.DeleteOptions{})
	})
	if _, err := ar.MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ar.MutatingWebhookConfigurations().Delete(context.Background(), group, metav1.DeleteOptions{})
	})
	for _, m := range we.mgrs {
		waitReady(t, m)
	}
	we.ready = time.Since(started)
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = we.warnings
	wdyn := dynamic.NewForConfigOrDie(cfg)
	we.v1 = wdyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}).Namespace(ns)
	we.v2 = wdyn.Resource(schema.GroupVersionResource{Group: group, Version: "v2", Resource: "widgets"}).Namespace(ns)
	return we
}

// startReplica runs one more manager serving the Widget webhooks, with
// certificates from the environment's Secret, and returns once its
// webhook server listens.
func (we *widgetEnv) startReplica(t *testing.T) *manager.Manager {
	t.Helper()
	scheme, err := widgetScheme(we.group)
	if err != nil {
		t.Fatal(err)
	}
	opts := []certs.Option{certs.WithHosts("127.0.0.1"), certs.WithValidatingWebhooks(we.group),
		certs.WithMutatingWebhooks(we.group), certs.WithCRDs("widgets." + we.group)}
	if we.validity > 0 {
		opts = append(opts, certs.WithValidity(we.validity))
	}
	mgr, err := manager.New(testkit.Env(t).Config, manager.WithScheme(scheme), manager.WithHealthAddr("127.0.0.1:0"),
		manager.WithWebhookServer(webhook.WithAddr("127.0.0.1:0")),
		manager.WithWebhookCertificates(types.NamespacedName{Namespace: we.ns, Name: "webhook-certs"}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	if err := builder.WebhookManagedBy(mgr, &Widget{}).WithValidator(we.rules).WithDefaulter(we.rules).Complete(); err != nil {
		t.Fatal(err)
	}
	if err := builder.WebhookManagedBy(mgr, &WidgetV2{}).Complete(); err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, mgr.Start)
	testkit.Eventually(t, 10*time.Second, "the webhook server listens", func() error {
		if mgr.WebhookServer().Addr() == "" {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	we.mgrs = append(we.mgrs, mgr)
	return mgr
}

// waitReady waits for m's /readyz to pass.
func waitReady(t *testing.T, m *manager.Manager) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, "/readyz passes", func() error {
		resp, err := http.Get("http://" + m.HealthAddr() + "/readyz")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("%d: %s", resp.StatusCode, body)
		}
		return nil
	})
}

func widget(group, version, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + version, "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

func TestWebhooksAgainstTheAPIServer(t *testing.T) {
	w := startWidgets(t, 0, 1)
	ctx := context.Background()
	// The first admission call, from a standing start: no Secret, no
	// bundle in the configurations and the CRD.
	before := time.Now()
	if _, err := w.v1.Create(ctx, widget(w.group, "v1", "first", map[string]any{"size": int64(1)}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := w.ready + time.Since(before)
	t.Logf("from Start to /readyz passing, with certificates made from nothing: %v; to the first admitted create: %v", w.ready, first)
	if first > 15*time.Second {
		t.Errorf("the first admission call succeeded %v after Start, want within 15s", first)
	}

	t.Run("validator denies a bad create with its message", func(t *testing.T) {
		_, err := w.v1.Create(ctx, widget(w.group, "v1", "negative", map[string]any{"size": int64(-1)}), metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.size must not be negative") {
			t.Fatalf("create size -1: %v", err)
		}
	})
	t.Run("defaulter's change is stored, warnings pass through", func(t *testing.T) {
		w.warnings.take()
		got, err := w.v1.Create(ctx, widget(w.group, "v1", "big", map[string]any{"size": int64(101)}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "blue" {
			t.Errorf("stored color %q, want the default blue", color)
		}
		if warn := w.warnings.take(); len(warn) != 1 || warn[0] != "size 101 above 100 is slow" {
			t.Errorf("warnings %q", warn)
		}
	})
	t.Run("validator denies a bad update with its status", func(t *testing.T) {
		obj, err := w.v1.Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(obj.Object, int64(5), "spec", "size")
		_, err = w.v1.Update(ctx, obj, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size: Invalid value: 5: may not shrink from 101") {
			t.Fatalf("shrinking update: %v", err)
		}
	})
	t.Run("dry run reaches the handler marked", func(t *testing.T) {
		_, err := w.v1.Create(ctx, widget(w.group, "v1", "dry", map[string]any{"size": int64(1)}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if got := w.rules.requests("dry"); got != "CREATE dry-run" {
			t.Errorf("validator saw %q", got)
		}
		if _, err := w.v1.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("dry-run create stored: %v", err)
		}
	})
	t.Run("a delete it accepts is allowed", func(t *testing.T) {
		w.warnings.take()
		if err := w.v1.Delete(ctx, "big", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := w.rules.requests("big"); !strings.HasSuffix(got, "DELETE") {
			t.Errorf("validator saw %q", got)
		}
		if warn := w.warnings.take(); len(warn) != 1 || warn[0] != "deleting big" {
			t.Errorf("delete warnings %q", warn)
		}
	})
	t.Run("a handler panic is a denial, not a crash", func(t *testing.T) {
		_, err := w.v1.Create(ctx, widget(w.group, "v1", "panic", map[string]any{"size": int64(1)}), metav1.CreateOptions{})
		if err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Fatalf("create of a panicking widget: %v", err)
		}
		if _, err := w.v1.Create(ctx, widget(w.group, "v1", "after-panic", map[string]any{"size": int64(1)}), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create after the panic: %v", err)
		}
	})
	t.Run("a malformed review gets a 400 naming what is wrong", func(t *testing.T) {
		client := w.client(t)
		path := builder.ValidatingPath(schema.GroupVersionKind{Group: w.group, Version: "v1", Kind: "Widget"})
		if path != "/validate-"+strings.ReplaceAll(w.group, ".", "-")+"-v1-widget" {
			t.Errorf("ValidatingPath %s is not controller-runtime's", path)
		}
		for body, want := range map[string]string{
			`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}}`: "admission.k8s.io/v1beta1",
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`:                            "request",
			`not json`: "",
		} {
			resp, err := client.Post("https://"+w.mgrs[0].WebhookServer().Addr()+path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), want) {
				t.Errorf("%s: %d %q, want 400 naming %q", body, resp.StatusCode, msg, want)
			}
		}
	})
	t.Run("objects stored as v1 are read, listed and watched as v2", func(t *testing.T) {
		watcher, err := w.v2.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=converted"})
		if err != nil {
			t.Fatal(err)
		}
		defer watcher.Stop()
		if _, err := w.v1.Create(ctx, widget(w.group, "v1", "converted", map[string]any{"size": int64(7), "color": "red"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		check := func(how string, obj *unstructured.Unstructured) {
			t.Helper()
			replicas, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
			paint, _, _ := unstructured.NestedString(obj.Object, "spec", "paint")
			if obj.GetAPIVersion() != w.group+"/v2" || replicas != 7 || paint != "red" {
				t.Errorf("%s as v2: %v", how, obj.Object)
			}
		}
		got, err := w.v2.Get(ctx, "converted", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check("get", got)
		list, err := w.v2.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=converted"})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("list: %v %v", list, err)
		}
		check("list", &list.Items[0])
		select {
		case ev := <-watcher.ResultChan():
			if ev.Type != watch.Added {
				t.Fatalf("watch event %s: %v", ev.Type, ev.Object)
			}
			check("watch", ev.Object.(*unstructured.Unstructured))
		case <-time.After(10 * time.Second):
			t.Fatal("no watch event")
		}
		// And the other way: written as v2, stored as v1.
		if _, err := w.v2.Create(ctx, widget(w.group, "v2", "from-v2", map[string]any{"replicas": int64(3), "paint": "green"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		v1, err := w.v1.Get(ctx, "from-v2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if size, _, _ := unstructured.NestedInt64(v1.Object, "spec", "size"); size != 3 {
			t.Errorf("v2 replicas 3 read as v1: %v", v1.Object)
		}
	})
	t.Run("a conversion failure reaches the client with the handler's message", func(t *testing.T) {
		if _, err := w.v1.Create(ctx, widget(w.group, "v1", "thirteen", map[string]any{"size": int64(unlucky)}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := w.v2.Get(ctx, "thirteen", metav1.GetOptions{})
		if err == nil || !strings.Contains(err.Error(), "size 13 is unlucky") {
			t.Fatalf("reading an unconvertible widget as v2: %v", err)
		}
	})
}

// client trusts the CA bundle the manager's certificates injected.
func (w *widgetEnv) client(t *testing.T) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(w.bundle(t)) {
		t.Fatal("no CA bundle injected")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
