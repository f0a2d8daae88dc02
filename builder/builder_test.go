package builder_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// notInScheme is a Go type no scheme knows.
type notInScheme struct{ corev1.ConfigMap }

func (n *notInScheme) DeepCopyObject() runtime.Object { c := *n; return &c }

var nop = reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })

func newManager(t *testing.T, ns string) *manager.Manager {
	t.Helper()
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuilderErrorsNameTheProblem(t *testing.T) {
	m := newManager(t, "default")
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(nop); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		b    *builder.Builder
		want string
	}{
		"not in scheme":      {builder.ControllerManagedBy(m).For(builder.Kind(&notInScheme{})), "*builder_test.notInScheme is not in the scheme"},
		"name reused":        {builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})), `a controller named "configmap" already exists`},
		"no For":             {builder.ControllerManagedBy(m).Named("x").Owns(builder.Kind(&corev1.Pod{})), "no primary kind"},
		"For twice":          {builder.ControllerManagedBy(m).For(builder.Kind(&corev1.Pod{})).For(builder.Kind(&corev1.Secret{})), "For called twice"},
		"Watches nil h":      {builder.ControllerManagedBy(m).Named("w").For(builder.Kind(&corev1.Pod{})).Watches(builder.Handle(&corev1.Secret{}, nil)), "Watches: Handle needs a handler"},
		"empty KindInput":    {builder.ControllerManagedBy(m).Named("e").For(builder.KindInput{}), "For: empty KindInput"},
		"empty HandlerInput": {builder.ControllerManagedBy(m).Named("e").For(builder.Kind(&corev1.Pod{})).Watches(builder.HandlerInput{}), "Watches: empty HandlerInput"},
		"unstructured":       {builder.ControllerManagedBy(m).For(builder.Kind(&unstructured.Unstructured{})), "needs apiVersion and kind set"},
		"Owns not in scheme": {builder.ControllerManagedBy(m).Named("o").For(builder.Kind(&corev1.Pod{})).Owns(builder.Kind(&notInScheme{})), "Owns: *builder_test.notInScheme is not in the scheme"},
	} {
		err := tc.b.Complete(nop)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// recorder is a reconciler that reports each request on a channel.
type recorder struct{ ch chan reconcile.Request }

func (r recorder) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.ch <- req
	return reconcile.Result{}, nil
}

// expect waits for a reconcile of name, skipping others.
func (r recorder) expect(t *testing.T, name string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case req := <-r.ch:
			if req.Name == name {
				return
			}
		case <-deadline:
			t.Fatalf("no reconcile of %s", name)
		}
	}
}

func TestOwnsWatchesAndEventFilter(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "builder-"), testkit.Clientset(t)

	m := newManager(t, ns)
	r := recorder{ch: make(chan reconcile.Request, 100)}
	// Secrets named after a deployment ask for that deployment.
	bySecretName := handler.EnqueueFunc(func(_ context.Context, s *corev1.Secret) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: strings.TrimSuffix(s.Name, "-secret")}}}
	})
	skipIgnored := predicate.NewFilter(func(o object.Object) bool { return o.GetLabels()["ignore"] != "true" })
	err := builder.ControllerManagedBy(m).
		For(builder.Kind(&appsv1.Deployment{})).
		Owns(builder.Kind(&corev1.ConfigMap{})).
		Watches(builder.Handle(&corev1.Secret{}, bySecretName)).
		WithEventFilter(skipIgnored).
		Complete(r)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, m.Start)

	d, err := cs.AppsV1().Deployments(ns).Create(ctx, testkit.Deployment(ns, "web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.expect(t, "web") // For

	yes := true
	owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, owned, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, "web") // Owns: the owner, not the config map

	ignored := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ignored-secret", Labels: map[string]string{"ignore": "true"}}}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, ignored, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "api-secret"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, "api") // Watches, through the map function
	// Events arrive in order per kind: "ignored" was created first, so its
	// reconcile would have come before "api"'s had the filter let it pass.
	for len(r.ch) > 0 {
		if req := <-r.ch; req.Name == "ignored" {
			t.Fatal("WithEventFilter let a filtered event through")
		}
	}
}
