package controller

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/docs/tutorial/04-finalizer/api/v1alpha1"
	"github.com/steadyctl/steady/docs/tutorial/04-finalizer/internal/dns"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object/applyconfig"
	"github.com/steadyctl/steady/reconcile"
)

// dnsFinalizer keeps a deleted StaticSite until its DNS record is
// removed: the API server only marks the site (metadata.deletionTimestamp)
// while a finalizer is listed.
const dnsFinalizer = "tutorial.steady.dev/dns-record"

// The permissions the controller needs, which controller-gen writes to
// config/rbac/role.yaml.
//
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch

// StaticSiteReconciler brings the world in line with each StaticSite: it
// applies the site's ConfigMap, Deployment and Service, publishes its
// domain, and reports in the site's status conditions how the rollout of
// its web servers goes. When a site is deleted, it removes the domain's
// record.
type StaticSiteReconciler struct {
	sites       *client.Client[*v1alpha1.StaticSite]
	configMaps  *client.Client[*corev1.ConfigMap]
	deployments *client.Client[*appsv1.Deployment]
	services    *client.Client[*corev1.Service]
	// scheme gives the owner references the site's apiVersion and kind.
	scheme *runtime.Scheme
	// dns publishes the sites' domains.
	dns dns.Provider
}

// SetupWithManager wires the StaticSite controller into mgr, whose scheme
// must hold StaticSite (NewScheme), publishing domains with provider.
func SetupWithManager(mgr *manager.Manager, provider dns.Provider) error {
	if provider == nil {
		return errors.New("staticsite controller: no DNS provider")
	}
	r := &StaticSiteReconciler{scheme: mgr.Cluster().Scheme(), dns: provider}
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
	// The finalizer's Reconciler reads the site, adds the finalizer before
	// apply ever runs, calls apply while the site lives, and cleanup once
	// it is deleted, removing the finalizer when cleanup succeeds.
	f, err := finalizer.New(r.sites, dnsFinalizer, finalizer.Funcs[*v1alpha1.StaticSite]{Apply: r.apply, Cleanup: r.cleanup})
	if err != nil {
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
		Complete(f)
}

// apply brings the world in line with a site that carries the finalizer
// and is not being deleted: its children, its DNS record, its conditions.
func (r *StaticSiteReconciler) apply(ctx context.Context, site *v1alpha1.StaticSite) (reconcile.Result, error) {
	d, err := r.applyChildren(ctx, site)
	if err != nil {
		return reconcile.Result{}, err
	}
	// Published only now that the finalizer is stored: a deletion from
	// here on waits for cleanup, so no record is left behind.
	if err := r.dns.Ensure(ctx, site.Spec.Domain, serviceHost(site)); err != nil {
		return reconcile.Result{}, fmt.Errorf("publishing %s: %w", site.Spec.Domain, err)
	}
	ready, progressing := conditions(site, d)
	return reconcile.Result{}, r.writeConditions(ctx, site, ready, progressing)
}

// cleanup removes the DNS record of a site being deleted. When it returns
// no error the finalizer goes, and with it the site; an error keeps the
// site, and the controller retries with backoff. The children need
// nothing: the garbage collector deletes them by their owner references.
func (r *StaticSiteReconciler) cleanup(ctx context.Context, site *v1alpha1.StaticSite) (reconcile.Result, error) {
	if err := r.dns.Remove(ctx, site.Spec.Domain); err != nil {
		return reconcile.Result{}, fmt.Errorf("unpublishing %s: %w", site.Spec.Domain, err)
	}
	return reconcile.Result{}, nil
}

// serviceHost is what the site's domain points to: its Service's name in
// the cluster's DNS. A real operator would point it at the address of
// the ingress or load balancer that exposes the Service.
func serviceHost(site *v1alpha1.StaticSite) string {
	return site.Name + "." + site.Namespace + ".svc.cluster.local"
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
