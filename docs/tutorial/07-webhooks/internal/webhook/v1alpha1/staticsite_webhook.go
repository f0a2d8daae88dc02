package v1alpha1

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/docs/tutorial/07-webhooks/api/v1alpha1"
	"github.com/steadyctl/steady/manager"
)

// The webhook configurations, which controller-gen writes to
// config/webhook/manifests.yaml: the paths are those WebhookManagedBy
// serves, /<mutate|validate>-<group with dashes>-<version>-<kind>.
//
// +kubebuilder:webhook:path=/mutate-tutorial-steady-dev-v1alpha1-staticsite,mutating=true,failurePolicy=fail,sideEffects=None,groups=tutorial.steady.dev,resources=staticsites,verbs=create,versions=v1alpha1,name=mstaticsite-v1alpha1.tutorial.steady.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-tutorial-steady-dev-v1alpha1-staticsite,mutating=false,failurePolicy=fail,sideEffects=None,groups=tutorial.steady.dev,resources=staticsites,verbs=create,versions=v1alpha1,name=vstaticsite-v1alpha1.tutorial.steady.dev,admissionReviewVersions=v1

// SetupStaticSiteWebhookWithManager registers the StaticSite webhooks
// with mgr's webhook server. Sites without a domain get one under
// baseDomain.
func SetupStaticSiteWebhookWithManager(mgr *manager.Manager, baseDomain string) error {
	if baseDomain == "" {
		return errors.New("staticsite webhooks: no base domain")
	}
	// The validator reads the manager's cache of StaticSites, the one the
	// controller reads too.
	sites, err := client.For[*v1alpha1.StaticSite](mgr.Factory(), "")
	if err != nil {
		return fmt.Errorf("staticsite webhooks: %w", err)
	}
	return builder.WebhookManagedBy(mgr, &v1alpha1.StaticSite{}).
		WithDefaulter(&StaticSiteDefaulter{BaseDomain: baseDomain}).
		WithValidator(&StaticSiteValidator{sites: sites}).
		Complete()
}

// StaticSiteDefaulter gives a StaticSite without a domain one under the
// operator's base domain: <name>.<namespace>.<base domain>. A default
// that depends on how the operator is configured cannot be written in the
// CRD's schema.
type StaticSiteDefaulter struct {
	// BaseDomain is the domain the defaults go under, such as
	// sites.example.com.
	BaseDomain string
}

var _ admission.Defaulter[*v1alpha1.StaticSite] = (*StaticSiteDefaulter)(nil)

// Default sets the domain of a site created without one. A site created
// with metadata.generateName may have no name yet; it keeps no domain,
// and the schema, which the API server checks after the mutating
// webhooks, refuses it. Updates need no default: the schema requires the
// domain and the CEL rule keeps it.
func (d *StaticSiteDefaulter) Default(_ context.Context, site *v1alpha1.StaticSite) error {
	if site.Spec.Domain == "" && site.Name != "" {
		site.Spec.Domain = site.Name + "." + site.Namespace + "." + d.BaseDomain
	}
	return nil
}

// StaticSiteValidator refuses a StaticSite whose domain another site has
// already: both would publish one DNS record, and deleting either would
// remove it for both. CEL rules see one object at a time, so only a
// webhook can check this.
type StaticSiteValidator struct {
	sites client.Reader[*v1alpha1.StaticSite]
}

var _ admission.Validator[*v1alpha1.StaticSite] = (*StaticSiteValidator)(nil)

// ValidateCreate refuses the site if its domain is taken.
func (v *StaticSiteValidator) ValidateCreate(ctx context.Context, site *v1alpha1.StaticSite) (admission.Warnings, error) {
	all, err := v.sites.List(ctx)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("listing StaticSites: %w", err))
	}
	for _, other := range all {
		if other.Spec.Domain == site.Spec.Domain && (other.Namespace != site.Namespace || other.Name != site.Name) {
			return nil, apierrors.NewInvalid(v1alpha1.GroupVersion.WithKind("StaticSite").GroupKind(), site.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "domain"), site.Spec.Domain,
					fmt.Sprintf("already used by StaticSite %s/%s", other.Namespace, other.Name)),
			})
		}
	}
	return nil, nil
}

// ValidateUpdate admits every update; the configuration does not even
// send them. The domain cannot change (the schema's CEL rule says so), so
// there is nothing to check; and refusing an update because another site
// took the domain meanwhile would refuse the controller's own writes too,
// such as the removal of its finalizer, and keep the site from ever being
// deleted.
func (v *StaticSiteValidator) ValidateUpdate(context.Context, *v1alpha1.StaticSite, *v1alpha1.StaticSite) (admission.Warnings, error) {
	return nil, nil
}

// ValidateDelete admits every deletion; the configuration does not send
// them.
func (v *StaticSiteValidator) ValidateDelete(context.Context, *v1alpha1.StaticSite) (admission.Warnings, error) {
	return nil, nil
}
