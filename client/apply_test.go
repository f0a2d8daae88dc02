package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// managedBy returns the fields (the raw fieldsV1) that manager applied to
// obj, and whether it has an entry at all.
func managedBy(obj metav1.Object, manager string) (string, bool) {
	for _, e := range obj.GetManagedFields() {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply {
			return e.FieldsV1.GetRawString(), true
		}
	}
	return "", false
}

// Two field managers that set the same field to different values
// conflict: the second gets an ApplyConflictError naming the first and the
// field, which is also a 409 Conflict; with force it takes the field over.
// A manager's later apply removes what it no longer sets.
func TestApplyConflictThenForce(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	cm := func(data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("settings", ns).WithData(data)
	}
	first, err := c.Apply(ctx, cm(map[string]string{"color": "red", "size": "m"}), client.FieldManager("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if first.UID == "" || first.Data["color"] != "red" {
		t.Fatalf("Apply of a new object returned %v %v, want it created", first.UID, first.Data)
	}

	_, err = c.Apply(ctx, cm(map[string]string{"color": "blue"}), client.FieldManager("bob"))
	var conflict *client.ApplyConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("conflicting Apply: %v (%T), want an *ApplyConflictError", err, err)
	}
	want := []client.FieldConflict{{Manager: "alice", Field: ".data.color"}}
	if len(conflict.Conflicts) != 1 || conflict.Conflicts[0] != want[0] || conflict.Manager != "bob" || conflict.Key != ns+"/settings" {
		t.Fatalf("conflict = %+v, want bob's apply to %s/settings conflicting on %v", conflict, ns, want)
	}
	if !apierrors.IsConflict(err) {
		t.Fatalf("IsConflict(%v) = false", err)
	}
	for _, part := range []string{"configmaps " + ns + "/settings", `"bob"`, `"alice"`, ".data.color", "ForceOwnership"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("conflict error %q does not mention %s", err, part)
		}
	}
	if got, _ := c.Live().Get(ctx, ns, "settings"); got.Data["color"] != "red" {
		t.Fatalf("a refused apply changed the object: %v", got.Data)
	}

	forced, err := c.Apply(ctx, cm(map[string]string{"color": "blue"}), client.FieldManager("bob"), client.ForceOwnership())
	if err != nil {
		t.Fatal(err)
	}
	bobs, _ := managedBy(forced, "bob")
	alices, _ := managedBy(forced, "alice")
	if forced.Data["color"] != "blue" || !strings.Contains(bobs, "f:color") || strings.Contains(alices, "f:color") {
		t.Fatalf("after a forced apply: data %v, bob owns %s, alice owns %s; want blue, owned by bob alone", forced.Data, bobs, alices)
	}
	// alice stops setting size: it goes; color is bob's now and stays.
	last, err := c.Apply(ctx, corev1ac.ConfigMap("settings", ns), client.FieldManager("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := last.Data["size"]; ok || last.Data["color"] != "blue" {
		t.Fatalf("after alice applied no data: %v, want only bob's color", last.Data)
	}
}

// ApplyStatus writes the status subresource only, of an object that must
// exist.
func TestApplyStatus(t *testing.T) {
	ns := testkit.Namespace(t, "client-")
	deployments, _ := newClient[*appsv1.Deployment](t, ns)
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	spec := appsv1ac.DeploymentSpec().WithReplicas(1).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("example.invalid/app:1"))))
	d, err := deployments.Apply(ctx, appsv1ac.Deployment("web", ns).WithSpec(spec), client.FieldManager("deployer"))
	if err != nil {
		t.Fatal(err)
	}
	status := appsv1ac.Deployment("web", ns).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(5)). // not saved: status only
		WithStatus(appsv1ac.DeploymentStatus().WithObservedGeneration(d.Generation).WithReplicas(1))
	got, err := deployments.ApplyStatus(ctx, status, client.FieldManager("deployer"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != d.Generation || got.Status.Replicas != 1 || *got.Spec.Replicas != 1 {
		t.Fatalf("after ApplyStatus: status %+v, spec.replicas %d; want the status saved and the spec untouched", got.Status, *got.Spec.Replicas)
	}
	// One manager name, two owners: the object's fields and the status's.
	subresources := map[string]bool{}
	for _, e := range got.ManagedFields {
		if e.Manager == "deployer" {
			subresources[e.Subresource] = true
		}
	}
	if !subresources[""] || !subresources["status"] {
		t.Fatalf("deployer's managed fields %+v: want an entry for the object and one for its status", got.ManagedFields)
	}
	// Applying the spec again, without status, leaves the status alone.
	again, err := deployments.Apply(ctx, appsv1ac.Deployment("web", ns).WithSpec(spec), client.FieldManager("deployer"))
	if err != nil || again.Status.ObservedGeneration != d.Generation {
		t.Fatalf("spec applied again: %v, status %+v", err, again.Status)
	}
	_, err = deployments.ApplyStatus(ctx, appsv1ac.Deployment("missing", ns).WithStatus(appsv1ac.DeploymentStatus().WithReplicas(1)), client.FieldManager("deployer"))
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "apply status of deployments.apps "+ns+"/missing") {
		t.Fatalf("ApplyStatus of a missing object: %v, want NotFound naming it", err)
	}
}

// A kind without generated apply configurations is applied as an
// unstructured object holding exactly the fields to set.
func TestApplyUnstructured(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "raw", "namespace": ns, "labels": map[string]any{"tier": "web"}},
		"data":     map[string]any{"color": "green"},
	}}
	got, err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldManager("raw-writer"))
	if err != nil {
		t.Fatal(err)
	}
	fields, _ := managedBy(got, "raw-writer")
	if got.Data["color"] != "green" || got.Labels["tier"] != "web" || !strings.Contains(fields, "f:color") {
		t.Fatalf("unstructured apply stored %v %v, managed fields %s", got.Labels, got.Data, fields)
	}
}

// Apply refuses, before any request, a configuration that does not name
// an object of the client's kind, or has no field manager; each error
// names the object and what is missing.
func TestApplyRefusesBadInput(t *testing.T) {
	ns := testkit.Namespace(t, "client-")
	c, _ := newClient[*corev1.ConfigMap](t, ns)
	nodes, _ := newClient[*corev1.Node](t, "")
	ctx := context.Background()
	manager := client.FieldManager("m")
	unstr := func(obj map[string]any) runtime.ApplyConfiguration {
		return client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: obj})
	}
	for name, tc := range map[string]struct {
		cfg  runtime.ApplyConfiguration
		opts []client.ApplyOption
		want string
	}{
		"nil":                 {nil, []client.ApplyOption{manager}, "apply configmaps: nil apply configuration"},
		"nil pointer":         {(*corev1ac.ConfigMapApplyConfiguration)(nil), []client.ApplyOption{manager}, "is not an object"},
		"nil unstructured":    {client.ApplyConfigurationFromUnstructured(nil), []client.ApplyOption{manager}, "is not an object"},
		"no name":             {corev1ac.ConfigMap("", ns), []client.ApplyOption{manager}, "names no object"},
		"no namespace":        {corev1ac.ConfigMap("a", ""), []client.ApplyOption{manager}, "a: the apply configuration has no namespace"},
		"wrong kind":          {appsv1ac.Deployment("a", ns), []client.ApplyOption{manager}, ns + "/a: the apply configuration is a apps/v1 Deployment, the client's kind is v1 ConfigMap"},
		"no kind":             {unstr(map[string]any{"metadata": map[string]any{"name": "a", "namespace": ns}}), []client.ApplyOption{manager}, ns + "/a: the apply configuration has no apiVersion or kind (want v1 ConfigMap)"},
		"no field manager":    {corev1ac.ConfigMap("a", ns), nil, "apply configmaps " + ns + "/a: no field manager: pass client.FieldManager"},
		"empty field manager": {corev1ac.ConfigMap("a", ns), []client.ApplyOption{client.FieldManager("")}, "FieldManager: empty field manager name"},
	} {
		if _, err := c.Apply(ctx, tc.cfg, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Apply: %v, want an error containing %q", name, err, tc.want)
		}
	}
	if _, err := nodes.Apply(ctx, corev1ac.Node("n1").WithNamespace(ns), manager); err == nil || !strings.Contains(err.Error(), "nodes are cluster-scoped") {
		t.Errorf("Apply of a node with a namespace: %v", err)
	}
	if _, err := c.Live().Get(ctx, ns, "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("a refused apply created the object: %v", err)
	}
}

// In a reconcile, the field manager defaults to the controller's name.
func TestApplyFieldManagerIsTheController(t *testing.T) {
	ns := testkit.Namespace(t, "client-")
	ctx := context.Background()
	mgr, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	configMaps, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	applied := make(chan error, 10)
	err = builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).Named("copier").
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			if strings.HasSuffix(req.Name, "-copy") {
				return reconcile.Result{}, nil
			}
			_, err := configMaps.Apply(ctx, corev1ac.ConfigMap(req.Name+"-copy", req.Namespace).WithData(map[string]string{"from": req.Name}))
			select {
			case applied <- err:
			default:
			}
			return reconcile.Result{}, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, mgr.Start)

	if _, err := testkit.Clientset(t).CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "src"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-applied; err != nil {
		t.Fatalf("Apply from a reconcile without a field manager: %v", err)
	}
	cp, err := configMaps.Live().Get(ctx, ns, "src-copy")
	if err != nil {
		t.Fatal(err)
	}
	if fields, ok := managedBy(cp, "copier"); !ok || !strings.Contains(fields, "f:from") {
		t.Fatalf("src-copy's managed fields %+v: want the controller copier to own data.from", cp.ManagedFields)
	}
}
