package admit

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
)

// MaxReplicas is the most replicas a Deployment may ask for.
const MaxReplicas = 100

// NameLabel is the label a Deployment should carry; without it Validate
// warns.
const NameLabel = "app.kubernetes.io/name"

// Validate judges a Deployment as both children's validators do: more than
// MaxReplicas replicas is denied, a missing NameLabel or a container
// without a memory limit is a warning.
func Validate(d *appsv1.Deployment) (warnings []string, err error) {
	if r := d.Spec.Replicas; r != nil && *r > MaxReplicas {
		return nil, fmt.Errorf("spec.replicas: %d is more than the allowed %d", *r, MaxReplicas)
	}
	if d.Labels[NameLabel] == "" {
		warnings = append(warnings, "metadata.labels: "+NameLabel+" is missing")
	}
	for i, c := range d.Spec.Template.Spec.Containers {
		if _, ok := c.Resources.Limits["memory"]; !ok {
			warnings = append(warnings, fmt.Sprintf("spec.template.spec.containers[%d] (%s): no memory limit", i, c.Name))
		}
	}
	return warnings, nil
}

// ValidateUpdate judges the change of old to d: d must pass Validate, and
// its selector must not change.
func ValidateUpdate(old, d *appsv1.Deployment) (warnings []string, err error) {
	if old.Spec.Selector != nil && d.Spec.Selector != nil && !maps.Equal(old.Spec.Selector.MatchLabels, d.Spec.Selector.MatchLabels) {
		return nil, fmt.Errorf("spec.selector: immutable")
	}
	return Validate(d)
}
