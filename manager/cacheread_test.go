package manager_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// crowded returns a namespace with 400 Secrets of 64 KiB beside Secret
// "app" and ConfigMap "trigger": listing the Secrets takes long enough that
// a controller of ConfigMaps is ready well before a cache of Secrets would
// be. It is made once per test binary, so -count=20 does not make it 20
// times.
func crowded(cs kubernetes.Interface) (string, error) {
	crowdedOnce.Do(func() { crowdedNS, crowdedErr = makeCrowded(cs) })
	return crowdedNS, crowdedErr
}

var (
	crowdedOnce sync.Once
	crowdedNS   string
	crowdedErr  error
)

func makeCrowded(cs kubernetes.Interface) (string, error) {
	ctx := context.Background()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "crowded-"}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	filler := make([]byte, 64<<10)
	for i := range filler {
		filler[i] = byte('a' + i%26)
	}
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := range 8 { // 8 writers: the API server is the bottleneck, not the round trips
		wg.Go(func() {
			for i := w; i < 400; i += 8 {
				s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("filler-%03d", i)}, Data: map[string][]byte{"blob": filler}}
				if _, err := cs.CoreV1().Secrets(ns.Name).Create(ctx, s, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return "", err
	}
	if _, err := cs.CoreV1().Secrets(ns.Name).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app"}, StringData: map[string]string{"password": "x"}}, metav1.CreateOptions{}); err != nil {
		return "", err
	}
	_, err = cs.CoreV1().ConfigMaps(ns.Name).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "trigger"}}, metav1.CreateOptions{})
	return ns.Name, err
}

// A reconciler that reads a kind its controller does not watch is never
// told that an existing object is missing because that kind's cache has not
// been filled yet: the read waits for the cache's first list. Run with
// -count=20 to see it hold every time.
func TestFirstReconcileReadsUnwatchedKindFromSyncedCache(t *testing.T) {
	ns, err := crowded(testkit.Clientset(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"before Start", "in the reconciler"} {
		t.Run("client made "+when, func(t *testing.T) {
			m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
			if err != nil {
				t.Fatal(err)
			}
			var secrets *client.Client[*corev1.Secret]
			if when == "before Start" {
				if secrets, err = client.For[*corev1.Secret](m.Factory(), ""); err != nil {
					t.Fatal(err)
				}
			}
			firstReconcileReadsSecret(t, m, func() (*client.Client[*corev1.Secret], error) {
				if secrets != nil {
					return secrets, nil
				}
				return client.For[*corev1.Secret](m.Factory(), "")
			})
		})
	}
}

// firstReconcileReadsSecret runs m with a controller of ConfigMaps whose
// reconciler reads Secret "app" of the request's namespace through the
// client secrets returns, and fails the test unless the first reconcile
// reads it, with password "x", within a minute.
func firstReconcileReadsSecret(t *testing.T, m *manager.Manager, secrets func() (*client.Client[*corev1.Secret], error)) {
	t.Helper()
	first := make(chan error, 1)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		c, err := secrets()
		if err != nil {
			return reconcile.Result{}, err
		}
		s, err := c.Get(ctx, req.Namespace, "app")
		if err == nil && string(s.Data["password"]) != "x" {
			err = fmt.Errorf("read Secret app with data %q", s.Data)
		}
		select {
		case first <- err:
		default:
		}
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	start(t, m)
	select {
	case err := <-first:
		if err != nil {
			t.Fatalf("first reconcile: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no reconcile within 60s")
	}
}

// serviceAccount returns a config that acts as service account "operator"
// of ns, allowed only rules in ns: namespace-scoped RBAC, the reason people
// restrict a manager to a namespace.
func serviceAccount(t *testing.T, ns string, rules ...rbacv1.PolicyRule) *rest.Config {
	t.Helper()
	ctx, cs := context.Background(), testkit.Clientset(t)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "operator"}, Rules: rules}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "operator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "operator"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "operator", Namespace: ns}},
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":operator"}
	// RBAC changes reach the authorizer through its informers: wait until
	// the binding is in force.
	sa := kubernetesFor(t, cfg)
	testkit.Eventually(t, 30*time.Second, "the Role in force", func() error {
		_, err := sa.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	})
	return cfg
}

var readConfigMaps = rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}

// operatorManager returns a manager restricted to a fresh namespace, acting
// as a service account that may read ConfigMaps there and nothing else,
// with its health endpoints on a free port.
func operatorManager(t *testing.T) (*manager.Manager, string) {
	t.Helper()
	ns := testkit.Namespace(t, "mgr-")
	m, err := manager.New(serviceAccount(t, ns, readConfigMaps), manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns), manager.WithHealthAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	return m, ns
}

// Under a namespaced manager, a client asked for "" caches the manager's
// namespace, which namespace-scoped RBAC allows, and opens no cluster-wide
// watch; a client for another namespace is refused at construction.
func TestNamespacedManagerScopesEveryCache(t *testing.T) {
	m, ns := operatorManager(t)
	configMaps, err := client.For[*corev1.ConfigMap](m.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := configMaps.Informer().Namespaces(); len(got) != 1 || got[0] != ns {
		t.Fatalf("client for \"\" caches namespaces %q, want the manager's %q", got, ns)
	}
	_, err = client.For[*corev1.ConfigMap](m.Factory(), "kube-system")
	if err == nil || !strings.Contains(err.Error(), `"kube-system"`) || !strings.Contains(err.Error(), fmt.Sprintf("%q", ns)) {
		t.Fatalf("client for another namespace: %v, want an error naming both namespaces", err)
	}
	if _, err := configMaps.Get(context.Background(), "kube-system", "x"); err == nil || apierrors.IsNotFound(err) {
		t.Fatalf("Get in a namespace the cache does not hold: %v, want an error that is not NotFound", err)
	}
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 3)
	start(t, m)
	<-m.Elected() // closed once Start has started the caches
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := configMaps.List(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("List = %d objects, %v; want the namespace's 3", len(list), err)
	}
	for _, s := range m.Factory().Stats() {
		if !strings.HasSuffix(s.Name, "/"+ns) {
			t.Errorf("informer %s is not restricted to %s", s.Name, ns)
		}
	}
	testkit.Eventually(t, 30*time.Second, "/readyz ok", func() bool {
		code, _ := get(t, "http://"+m.HealthAddr()+"/readyz")
		return code == http.StatusOK
	})
}

// A read of a kind the operator may not list fails, within the read's
// deadline, with an error naming the kind and the reason; it is never a
// NotFound that would make a reconciler act as if the object were gone.
// /readyz says why the cache is not ready.
func TestReadOfForbiddenKindNamesKindAndReason(t *testing.T) {
	m, ns := operatorManager(t)
	secrets, err := client.For[*corev1.Secret](m.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	<-m.Elected()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = secrets.Get(ctx, ns, "app")
	switch {
	case err == nil:
		t.Fatal("Get of a forbidden kind succeeded")
	case apierrors.IsNotFound(err):
		t.Fatalf("Get of a forbidden kind says NotFound: %v", err)
	case ctx.Err() != nil:
		t.Fatalf("Get waited for the whole deadline: %v", err)
	case !errors.Is(err, informer.ErrNotSynced) || !strings.Contains(err.Error(), "secrets") || !strings.Contains(err.Error(), "forbidden"):
		t.Fatalf("Get of a forbidden kind: %v, want an error naming secrets and the reason", err)
	}
	if _, err := secrets.List(ctx); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("List of a forbidden kind: %v", err)
	}
	code, body := get(t, "http://"+m.HealthAddr()+"/readyz")
	if code != http.StatusInternalServerError || !strings.Contains(body, "secrets/"+ns) || !strings.Contains(body, "forbidden") {
		t.Fatalf("/readyz = %d %q, want a failure naming the cache and the reason", code, body)
	}
}

func kubernetesFor(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
