package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/docs/tutorial/03-status/api/v1alpha1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object/applyconfig"
	"github.com/steadyctl/steady/reconcile"
)

// The permissions the controller needs, which controller-gen writes to
// config/rbac/role.yaml.
//
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch

// StaticSiteReconciler brings the world in line with each StaticSite: it
// applies the site's ConfigMap, Deployment and Service, and reports in
// the site's status conditions how the rollout of its web servers goes.
type StaticSiteReconciler struct {
	sites       *client.Client[*v1alpha1.StaticSite]
	configMaps  *client.Client[*corev1.ConfigMap]
	deployments *client.Client[*appsv1.Deployment]
	services    *client.Client[*corev1.Service]
	// scheme gives the owner references the site's apiVersion and kind.
	scheme *runtime.Scheme
}

// SetupWithManager wires the StaticSite controller into mgr, whose scheme
// must hold StaticSite (NewScheme).
func SetupWithManager(mgr *manager.Manager) error {
	r := &StaticSiteReconciler{scheme: mgr.Cluster().Scheme()}
	// The clients read the manager's shared caches: the same informers the
	// builder watches below, so one watch per kind.
	var err error
	if r.sites, err = client.For[*v1alpha1.StaticSite](mgr.Factory(), ""); err != nil {
		return fmt.Errorf("staticsite controller: %w", err)
	}
	if r.configMaps, err = client.For[*corev1.ConfigMap](mgr.Factory(), ""); err != nil {
		return fmt.Errorf("staticsite controller: %w", err)
	}
	if r.deployments, err = client.For[*appsv1.Deployment](mgr.Factory(), ""); err != nil {
		return fmt.Errorf("staticsite controller: %w", err)
	}
	if r.services, err = client.For[*corev1.Service](mgr.Factory(), ""); err != nil {
		return fmt.Errorf("staticsite controller: %w", err)
	}
	return builder.ControllerManagedBy(mgr).
		For(builder.Kind(&v1alpha1.StaticSite{})).
		// A change to a child, its deletion included, reconciles the
		// StaticSite that controls it: someone's edit is undone, a deleted
		// child comes back.
		Owns(builder.Kind(&corev1.ConfigMap{})).
		Owns(builder.Kind(&appsv1.Deployment{})).
		Owns(builder.Kind(&corev1.Service{})).
		Complete(r)
}

// Reconcile applies the children of the StaticSite req names.
func (r *StaticSiteReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	site, err := r.sites.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		// Deleted: the garbage collector deletes its children, by their
		// owner references. Any other error is retried with backoff.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if site.DeletionTimestamp != nil {
		return reconcile.Result{}, nil // going: make nothing new for it
	}
	d, err := r.applyChildren(ctx, site)
	if err != nil {
		return reconcile.Result{}, err
	}
	ready, progressing := conditions(site, d)
	return reconcile.Result{}, r.writeConditions(ctx, site, ready, progressing)
}

// applyChildren applies the site's ConfigMap, Deployment and Service with
// Server-Side Apply, and returns the Deployment as the API server stored
// it, status included.
//
// Each apply sends the fields this operator decides, under its field
// manager (the controller's name, "staticsite"); the API server merges
// them into the object, creating it if needed, and leaves alone the
// fields others set: the Service's clusterIP, defaults, a label added by
// hand. ForceOwnership takes back a field someone else changed, such as a
// `kubectl scale` of the Deployment: this operator alone decides those.
// An apply that changes nothing writes nothing.
func (r *StaticSiteReconciler) applyChildren(ctx context.Context, site *v1alpha1.StaticSite) (*appsv1.Deployment, error) {
	// The controller reference: the garbage collector deletes the child
	// with the site, and Owns maps the child's events to the site.
	owner, err := applyconfig.ControllerReference(site, site.Namespace, r.scheme)
	if err != nil {
		return nil, fmt.Errorf("owner reference to StaticSite %s: %w", site.Name, err)
	}
	if _, err := r.configMaps.Apply(ctx, desiredConfigMap(site, owner), client.ForceOwnership()); err != nil {
		return nil, fmt.Errorf("applying ConfigMap %s: %w", configMapName(site), err)
	}
	d, err := r.deployments.Apply(ctx, desiredDeployment(site, owner), client.ForceOwnership())
	if err != nil {
		return nil, fmt.Errorf("applying Deployment %s: %w", site.Name, err)
	}
	if _, err := r.services.Apply(ctx, desiredService(site, owner), client.ForceOwnership()); err != nil {
		return nil, fmt.Errorf("applying Service %s: %w", site.Name, err)
	}
	return d, nil
}
