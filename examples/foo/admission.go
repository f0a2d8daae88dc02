package main

import (
	"context"
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

// The Foo admission webhooks judge the hub, v1beta1, alone: the API server
// converts a request made as v1alpha1 to v1beta1 before it calls them
// (matchPolicy Equivalent, the default), so they see every Foo, whichever
// version it was written in.

// What a Foo's Deployment gets when the Foo leaves it out. The reconciler
// assumes the same for a Foo the defaulter never saw (one stored before
// the webhook was registered, or on a cluster that runs none), so the
// defaulter changes what kubectl shows, not what the operator does.
const (
	defaultReplicas int32 = 1
	defaultImage          = pauseImage
)

// pauseImage is what the Deployments run unless their Foo says otherwise:
// testenv runs no pods, and on a real cluster pause is the smallest image
// there is.
const pauseImage = "registry.k8s.io/pause:3.10"

// maxReplicas is the most replicas the validator lets a Foo ask for.
const maxReplicas = 10

// deprecatedRegistry is the image registry Kubernetes froze in 2023 in
// favour of registry.k8s.io: images from it earn a warning, not a refusal.
const deprecatedRegistry = "k8s.gcr.io/"

var fooKind = schema.GroupKind{Group: v1beta1.GroupName, Kind: "Foo"}

// replicasOf is the replica count foo asks for.
func replicasOf(foo *v1beta1.Foo) int32 {
	return ptr.Deref(foo.Spec.Deployment.Replicas, defaultReplicas)
}

// imageOf is the image foo's Deployment runs.
func imageOf(foo *v1beta1.Foo) string {
	if image := foo.Spec.Deployment.Image; image != "" {
		return image
	}
	return defaultImage
}

// fooDefaulter is the mutating webhook: it writes the defaults into a Foo
// created or updated without them.
type fooDefaulter struct{}

// Default fills in replicas and image. It is idempotent, as a mutating
// webhook must be: the API server may call it again after other
// mutations.
func (fooDefaulter) Default(_ context.Context, foo *v1beta1.Foo) error {
	d := &foo.Spec.Deployment
	if d.Replicas == nil {
		d.Replicas = ptr.To(defaultReplicas)
	}
	if d.Image == "" {
		d.Image = defaultImage
	}
	return nil
}

// fooValidator is the validating webhook. Its refusals are
// apierrors.NewInvalid errors, so the client gets 422 Invalid with one
// cause per field, as for the API server's own checks.
type fooValidator struct{}

// ValidateCreate judges a new Foo's spec.
func (fooValidator) ValidateCreate(_ context.Context, foo *v1beta1.Foo) (admission.Warnings, error) {
	return warnings(foo), invalid(foo, validateSpec(foo.Spec))
}

// ValidateUpdate refuses a change of the Deployment's name, and judges
// the spec only if it changed: the operator's own writes (finalizers,
// status) and the deletion of a Foo stored before these rules existed must
// go through, whatever that Foo holds.
func (fooValidator) ValidateUpdate(_ context.Context, old, foo *v1beta1.Foo) (admission.Warnings, error) {
	// The operator would leave the old Deployment behind, unowned by
	// anything it still looks at: a new name takes a new Foo.
	errs := apivalidation.ValidateImmutableField(foo.Spec.Deployment.Name, old.Spec.Deployment.Name,
		field.NewPath("spec", "deployment", "name"))
	if apiequality.Semantic.DeepEqual(old.Spec, foo.Spec) {
		return nil, invalid(foo, errs)
	}
	return warnings(foo), invalid(foo, append(errs, validateSpec(foo.Spec)...))
}

// ValidateDelete lets every deletion through: the finalizer takes care of
// what a Foo leaves behind.
func (fooValidator) ValidateDelete(context.Context, *v1beta1.Foo) (admission.Warnings, error) {
	return nil, nil
}

// validateSpec checks what the CRD's schema does not.
func validateSpec(spec v1beta1.FooSpec) field.ErrorList {
	var errs field.ErrorList
	d, path := spec.Deployment, field.NewPath("spec", "deployment")
	// A Deployment's name may be a DNS subdomain, but it also makes its
	// pods' host names and is the value of their app label: a DNS label
	// (lower case, no dots, at most 63 characters) is safe for all three.
	for _, msg := range validation.IsDNS1123Label(d.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), d.Name, msg))
	}
	if r := d.Replicas; r != nil && (*r < 0 || *r > maxReplicas) {
		errs = append(errs, field.Invalid(path.Child("replicas"), *r, fmt.Sprintf("must be between 0 and %d", maxReplicas)))
	}
	return errs
}

// warnings are what the client is told about an admitted Foo.
func warnings(foo *v1beta1.Foo) admission.Warnings {
	if image := foo.Spec.Deployment.Image; strings.HasPrefix(image, deprecatedRegistry) {
		return admission.Warnings{fmt.Sprintf("spec.deployment.image: %s is deprecated and frozen; use registry.k8s.io/%s",
			strings.TrimSuffix(deprecatedRegistry, "/"), strings.TrimPrefix(image, deprecatedRegistry))}
	}
	return nil
}

// invalid is nil without errs, and otherwise the 422 Invalid error that
// lists them.
func invalid(foo *v1beta1.Foo, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(fooKind, foo.Name, errs)
}
