package manager_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
)

var secretKind = schema.GroupKind{Kind: "Secret"}

// A manager of two namespaces runs a controller that is asked to reconcile
// the objects of those two only, through the builder unchanged; WithKind
// gives Secrets a namespace of their own, outside the two.
func TestManagerNamespacesAndKindOverride(t *testing.T) {
	ctx, cs := context.Background(), testkit.Clientset(t)
	a, b, c := testkit.Namespace(t, "mgr-a-"), testkit.Namespace(t, "mgr-b-"), testkit.Namespace(t, "mgr-c-")
	for _, ns := range []string{a, b, c} {
		testkit.CreateConfigMaps(t, cs, ns, 0, 1)
	}
	if _, err := cs.CoreV1().Secrets(c).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespaces(a, a)); err == nil || !strings.Contains(err.Error(), "WithNamespaces") {
		t.Fatalf("a namespace given twice: %v, want an error naming the option", err)
	}
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespaces(a, b),
		manager.WithKind(secretKind, informer.KindOptions{Namespaces: []string{c}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Namespaces(), slices.Sorted(slices.Values([]string{a, b})); !slices.Equal(got, want) {
		t.Fatalf("Namespaces() = %q, want %q", got, want)
	}
	r := &testkit.Keys{}
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	secrets, err := client.For[*corev1.Secret](m.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.For[*corev1.ConfigMap](m.Factory(), c); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", c)) {
		t.Fatalf("a ConfigMap client of %s: %v, want an error naming it", c, err)
	}
	start(t, m)
	testkit.Eventually(t, 30*time.Second, "the ConfigMaps of both namespaces reconciled", func() bool {
		return r.Has(a+"/cm-0") && r.Has(b+"/cm-0")
	})
	readCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := secrets.Get(readCtx, c, "s"); err != nil {
		t.Fatalf("Secret in the kind's own namespace: %v", err)
	}
	if _, err := secrets.Get(readCtx, a, "s"); err == nil || apierrors.IsNotFound(err) {
		t.Fatalf("Secret in the manager's namespace but not the kind's: %v, want an error that is not NotFound", err)
	}
	for _, ns := range []string{c, a} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 30*time.Second, "the later ConfigMap reconciled", func() bool { return r.Has(a + "/late") })
	if got := r.InNamespace(c); len(got) > 0 {
		t.Fatalf("reconciled %q outside the manager's namespaces", got)
	}
}

// An operator allowed only to get Secrets — no list, no watch — reads them
// in its reconciler when they are uncached; no informer of Secrets exists.
func TestUncachedKindNeedsOnlyGet(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	ctx, cs := context.Background(), testkit.Clientset(t)
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app"}, StringData: map[string]string{"password": "x"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testkit.CreateConfigMaps(t, cs, ns, 0, 1)
	getSecrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}
	m, err := manager.New(serviceAccount(t, ns, readConfigMaps, getSecrets), manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns),
		manager.WithKind(secretKind, informer.KindOptions{Uncached: true}))
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := client.For[*corev1.Secret](m.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	firstReconcileReadsSecret(t, m, func() (*client.Client[*corev1.Secret], error) { return secrets, nil })
	if secrets.Informer() != nil {
		t.Fatal("an uncached kind's client has an informer")
	}
	for _, s := range m.Factory().Stats() {
		if strings.HasPrefix(s.Name, "secrets") {
			t.Fatalf("informer %s runs for an uncached kind", s.Name)
		}
	}
	// Listing needs the list verb, which the operator does not have: the
	// list went to the API server, not a cache.
	if _, err := secrets.List(ctx); !apierrors.IsForbidden(err) {
		t.Fatalf("List of Secrets without the list verb: %v, want Forbidden", err)
	}
}
