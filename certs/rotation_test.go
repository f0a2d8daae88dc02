package certs_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
)

// Two replicas, each behind a webhook server the API server calls (with
// failurePolicy Fail) on every ConfigMap created in the namespace, go
// through at least three CA rotations while ConfigMaps are created
// several times a second: not one create fails. A CRD converted by the
// webhook gets the bundle too.
func TestRotationWithoutFailures(t *testing.T) {
	t.Parallel()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "certs-rotation-")
	secret := types.NamespacedName{Namespace: ns, Name: "webhook-certs"}
	const validity = 20 * time.Second

	config, crd := ns+"-rotation", "widgets."+ns+".steady.dev"
	opts := []certs.Option{certs.WithValidity(validity), certs.WithValidatingWebhooks(config), certs.WithCRDs(crd)}
	a, b := newAuthority(t, secret, opts...), newAuthority(t, secret, opts...)
	srvA, srvB := startAdmissionServer(t, a.GetCertificate), startAdmissionServer(t, b.GetCertificate)
	createValidating(t, config, webhooks(ns, srvA.URL, srvB.URL), nil)
	installConversionCRD(t, ns, srvA.URL)
	configMaps := env.Clientset.CoreV1().ConfigMaps(ns)
	create := func(ctx context.Context) error {
		_, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}}, metav1.CreateOptions{})
		return err
	}

	start := time.Now()
	testkit.Run(t, a.Start, b.Start)
	testkit.Eventually(t, 30*time.Second, "a first create admitted through both webhooks", func() error { return create(context.Background()) })
	firstCall := time.Since(start)
	testkit.Eventually(t, 10*time.Second, "both replicas Ready", func() error {
		if err := a.Ready(); err != nil {
			return err
		}
		return b.Ready()
	})

	callsBefore := []int64{srvA.calls.Load(), srvB.calls.Load()}
	tlsErrorsBefore := srvA.tlsErrors.Load() + srvB.tlsErrors.Load()
	var attempts, admitted, failures atomic.Int64
	var mu sync.Mutex
	var failed []error
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			attempts.Add(1)
			err := create(ctx)
			switch {
			case err == nil:
				admitted.Add(1)
			case ctx.Err() == nil:
				failures.Add(1)
				mu.Lock()
				failed = append(failed, err)
				mu.Unlock()
			}
		}
	})
	testkit.Eventually(t, 80*time.Second, "three changes of CA on both servers", func() error {
		if n, m := srvA.caChanges(), srvB.caChanges(); n < 3 || m < 3 {
			return fmt.Errorf("%d and %d", n, m)
		}
		return nil
	})
	elapsed := time.Since(start)
	stop()
	wg.Wait()

	if n := failures.Load(); n != 0 {
		t.Errorf("%d of %d creates failed during rotation: %v", n, attempts.Load(), errors.Join(failed...))
	}
	if n := srvA.tlsErrors.Load() + srvB.tlsErrors.Load() - tlsErrorsBefore; n != 0 {
		t.Errorf("%d TLS handshakes failed during rotation", n)
	}
	for i, srv := range []*admissionServer{srvA, srvB} {
		if calls, ok := srv.calls.Load()-callsBefore[i], admitted.Load(); calls < ok || ok < 100 {
			t.Errorf("%d creates admitted but %d calls to server %d; want at least 100 creates, each calling both servers", ok, calls, i)
		}
	}
	t.Logf("first admission call succeeded %v after Start; then over %v: %d creates, %d failed; calls %d and %d, handshakes %d and %d; CAs presented %v and %v",
		firstCall.Round(time.Millisecond), elapsed.Round(time.Second), attempts.Load(), failures.Load(),
		srvA.calls.Load(), srvB.calls.Load(), srvA.handshakes.Load(), srvB.handshakes.Load(), len(srvA.cas), len(srvB.cas))

	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the current bundle in CRD "+crd, func() error {
		obj, err := dyn.Resource(crdResource).Get(context.Background(), crd, metav1.GetOptions{})
		if err != nil {
			return err
		}
		enc, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		got, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return err
		}
		sec, err := env.Clientset.CoreV1().Secrets(ns).Get(context.Background(), secret.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !bytes.Equal(got, sec.Data["ca.crt"]) || obj.GetAnnotations()[certs.AnnotationSecretVersion] == "" {
			return fmt.Errorf("caBundle %.40q…, annotation %q", got, obj.GetAnnotations()[certs.AnnotationSecretVersion])
		}
		return nil
	})
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installConversionCRD installs a CRD of a group of the test's own with
// versions v1 and v2, converted by a webhook at url: widgets.<ns>.steady.dev.
func installConversionCRD(t *testing.T, ns, url string) {
	t.Helper()
	crd := testkit.CRD(schema.GroupVersionKind{Group: ns + ".steady.dev", Version: "v1", Kind: "Widget"})
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	v2 := runtime.DeepCopyJSONValue(versions[0]).(map[string]any)
	v2["name"], v2["storage"] = "v2", false
	if err := unstructured.SetNestedSlice(crd.Object, append(versions, v2), "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	conversion := map[string]any{"strategy": "Webhook", "webhook": map[string]any{
		"clientConfig":             map[string]any{"url": url + "/convert"},
		"conversionReviewVersions": []any{"v1"},
	}}
	if err := unstructured.SetNestedMap(crd.Object, conversion, "spec", "conversion"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := testkit.Env(t).InstallCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
}
