package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// These examples need an API server and do not run as tests;
// apply_test.go makes the same calls against a local control plane.
// configMaps stands for a client made as ExampleFor makes it, and mgr for
// its manager.
var (
	configMaps *client.Client[*corev1.ConfigMap]
	mgr        *manager.Manager
)

// settingsReconciler keeps a ConfigMap of settings next to each
// Deployment, owned by it.
type settingsReconciler struct {
	deployments client.Reader[*appsv1.Deployment]
	configMaps  client.Writer[*corev1.ConfigMap]
}

// Reconcile states the child object it wants, and Server-Side Apply makes
// it so: created if missing, changed if different, nothing else touched,
// and no read, resourceVersion or retry loop. The field manager is the
// controller's name; ForceOwnership takes over fields someone else
// changed, as the child's one authority should.
func (r settingsReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	web, err := r.deployments.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	owner := metav1ac.OwnerReference().WithAPIVersion("apps/v1").WithKind("Deployment").
		WithName(web.Name).WithUID(web.UID).WithController(true).WithBlockOwnerDeletion(true)
	cfg := corev1ac.ConfigMap(web.Name+"-settings", web.Namespace).
		WithOwnerReferences(owner).
		WithData(map[string]string{"replicas": fmt.Sprint(*web.Spec.Replicas)})
	_, err = r.configMaps.Apply(ctx, cfg, client.ForceOwnership())
	return reconcile.Result{}, err
}

// A controller applying a child object of each Deployment: Owns brings
// the Deployment back when its ConfigMap changes.
func ExampleClient_Apply_child() {
	r := settingsReconciler{deployments: deployments, configMaps: configMaps}
	err := builder.ControllerManagedBy(mgr).
		For(builder.Kind(&appsv1.Deployment{})).
		Owns(builder.Kind(&corev1.ConfigMap{})).
		Complete(r)
	if err != nil {
		log.Fatal(err)
	}
}

// Apply outside a reconcile names its field manager.
func ExampleClient_Apply() {
	ctx := context.Background()
	cm, err := configMaps.Apply(ctx, corev1ac.ConfigMap("flags", "shop").WithData(map[string]string{"beta": "on"}),
		client.FieldManager("flag-tool"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("applied at resourceVersion", cm.ResourceVersion)
}

// ApplyStatus writes the status subresource only: a controller reporting
// on an object it does not own the spec of.
func ExampleClient_ApplyStatus() {
	ctx := context.Background()
	status := appsv1ac.Deployment("web", "shop").
		WithStatus(appsv1ac.DeploymentStatus().WithObservedGeneration(3))
	if _, err := deployments.ApplyStatus(ctx, status, client.FieldManager("web-status")); err != nil {
		log.Fatal(err)
	}
}

// A custom resource without generated apply configurations is applied as
// an unstructured object that holds exactly the fields to set, as a YAML
// file given to kubectl apply --server-side would. (Here a ConfigMap,
// whose generated apply configuration would do as well.)
func ExampleApplyConfigurationFromUnstructured() {
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "flags", "namespace": "shop"},
		"data":     map[string]any{"beta": "on"},
	}}
	if _, err := configMaps.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldManager("flag-tool")); err != nil {
		log.Fatal(err)
	}
}

// A conflict says which fields other managers own; it is also a 409
// Conflict for code that only asks apierrors.IsConflict.
func ExampleApplyConflictError() {
	ctx := context.Background()
	_, err := configMaps.Apply(ctx, corev1ac.ConfigMap("flags", "shop").WithData(map[string]string{"beta": "off"}),
		client.FieldManager("flag-tool"))
	var conflict *client.ApplyConflictError
	switch {
	case errors.As(err, &conflict):
		for _, f := range conflict.Conflicts {
			fmt.Printf("%s is owned by %s\n", f.Field, f.Manager)
		}
	case apierrors.IsConflict(err):
		log.Fatal("not reached: every apply conflict is an ApplyConflictError")
	case err != nil:
		log.Fatal(err)
	}
}
