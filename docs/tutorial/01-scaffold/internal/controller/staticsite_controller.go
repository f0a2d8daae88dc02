package controller

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/docs/tutorial/01-scaffold/api/v1alpha1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// The permissions the controller needs, which controller-gen writes to
// config/rbac/role.yaml.
//
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tutorial.steady.dev,resources=staticsites/finalizers,verbs=update

// StaticSiteReconciler brings the world in line with each StaticSite.
type StaticSiteReconciler struct {
	// sites reads StaticSites from the manager's cache and writes them to
	// the API server.
	sites *client.Client[*v1alpha1.StaticSite]
}

// SetupWithManager wires the StaticSite controller into mgr, whose scheme
// must hold StaticSite (NewScheme).
func SetupWithManager(mgr *manager.Manager) error {
	sites, err := client.For[*v1alpha1.StaticSite](mgr.Factory(), "")
	if err != nil {
		return fmt.Errorf("staticsite controller: %w", err)
	}
	r := &StaticSiteReconciler{sites: sites}
	return builder.ControllerManagedBy(mgr).
		For(builder.Kind(&v1alpha1.StaticSite{})).
		Complete(r)
}

// Reconcile is called with the name of a StaticSite that changed, or
// whose children changed; never with its content, which it reads from the
// cache, so a burst of events becomes one reconcile of the latest state.
func (r *StaticSiteReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	site, err := r.sites.Get(ctx, req.Namespace, req.Name)
	if err != nil {
		// Deleted since the event: nothing to do. Any other error is
		// returned, and the request retried with backoff.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	controller.LoggerFrom(ctx).Info("Reconciling", "domain", site.Spec.Domain, "pages", len(site.Spec.Pages))
	// TODO: make the world match site.Spec (step 2).
	return reconcile.Result{}, nil
}
