package builder

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
)

// ConvertPath is where the builder serves CRD conversion, for every kind
// of the manager's scheme: controller-runtime's path, so that a CRD's
// conversion clientConfig carries over.
const ConvertPath = "/convert"

// WebhookBuilder registers the webhooks of one kind with a manager's
// webhook server; WebhookManagedBy starts one.
type WebhookBuilder[T object.Object] struct {
	mgr       *manager.Manager
	validator admission.Validator[T]
	defaulter admission.Defaulter[T]
}

// WebhookManagedBy starts registering the webhooks of obj's kind (a typed
// object in the manager's scheme; obj itself is not used) with m's webhook
// server:
//
//	err := builder.WebhookManagedBy(mgr, &samplev1.Foo{}).
//		WithValidator(v).
//		WithDefaulter(d).
//		Complete()
//
// A kind whose Go type is a conversion.Hub or conversion.Convertible also
// gets its versions converted at ConvertPath.
func WebhookManagedBy[T object.Object](m *manager.Manager, obj T) *WebhookBuilder[T] {
	return &WebhookBuilder[T]{mgr: m}
}

// WithValidator serves v at ValidatingPath(gvk), the path
// controller-runtime and kubebuilder's manifests use.
func (b *WebhookBuilder[T]) WithValidator(v admission.Validator[T]) *WebhookBuilder[T] {
	b.validator = v
	return b
}

// WithDefaulter serves d at MutatingPath(gvk).
func (b *WebhookBuilder[T]) WithDefaulter(d admission.Defaulter[T]) *WebhookBuilder[T] {
	b.defaulter = d
	return b
}

// Complete registers the webhooks. It fails when there is nothing to
// register, when the kind is not in the scheme, when a path is taken, and
// when a convertible kind's versions do not form one hub with spokes
// (conversion.CheckKind).
func (b *WebhookBuilder[T]) Complete() error {
	gvk, err := cluster.KindOf[T](b.mgr.Cluster())
	if err != nil {
		return fmt.Errorf("builder: webhook: %w", err)
	}
	srv := b.mgr.WebhookServer()
	log := b.mgr.Logger().WithName("webhook")
	var zero T
	_, hub := any(zero).(conversion.Hub)
	_, spoke := any(zero).(conversion.Convertible)
	if b.validator == nil && b.defaulter == nil && !hub && !spoke {
		return fmt.Errorf("builder: webhook for %s: nothing to serve (WithValidator, WithDefaulter, or a type that is a conversion.Hub or Convertible)", gvk)
	}
	var errs []error
	if b.validator != nil {
		errs = append(errs, srv.Handle(ValidatingPath(gvk), admission.NewValidator(b.validator, admission.WithLogger(log))))
	}
	if b.defaulter != nil {
		errs = append(errs, srv.Handle(MutatingPath(gvk), admission.NewDefaulter(b.defaulter, admission.WithLogger(log))))
	}
	if hub || spoke {
		scheme := b.mgr.Cluster().Scheme()
		if err := conversion.CheckKind(scheme, gvk.GroupKind()); err != nil {
			errs = append(errs, err)
		} else if !srv.Registered(ConvertPath) {
			errs = append(errs, srv.Handle(ConvertPath, conversion.NewHandler(scheme, conversion.WithLogger(b.mgr.Logger().WithName("conversion")))))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("builder: webhook for %s: %w", gvk, err)
	}
	return nil
}

// ValidatingPath is where WithValidator serves gvk's validator, for the
// ValidatingWebhookConfiguration that calls it:
// /validate-<group>-<version>-<kind>, with the group's dots as dashes and
// the kind in lower case, as controller-runtime and kubebuilder's
// manifests spell it.
func ValidatingPath(gvk schema.GroupVersionKind) string { return webhookPath("validate", gvk) }

// MutatingPath is where WithDefaulter serves gvk's defaulter:
// /mutate-<group>-<version>-<kind>.
func MutatingPath(gvk schema.GroupVersionKind) string { return webhookPath("mutate", gvk) }

// webhookPath is controller-runtime's path for a kind's webhook of verb.
func webhookPath(verb string, gvk schema.GroupVersionKind) string {
	return "/" + verb + "-" + strings.ReplaceAll(gvk.Group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}
