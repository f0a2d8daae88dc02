package applyconfig

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/steadyctl/steady/object"
)

// ControllerReference returns the controller reference that
// object.SetControllerReference would add to an object in namespace (""
// for a cluster-scoped one), as an apply configuration. The checks are
// SetControllerReference's, and so are its errors.
func ControllerReference(owner object.Object, namespace string, scheme *runtime.Scheme, opts ...object.OwnerOption) (*metav1ac.OwnerReferenceApplyConfiguration, error) {
	child := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace}}
	if err := object.SetControllerReference(owner, child, scheme, opts...); err != nil {
		return nil, err
	}
	ref := child.OwnerReferences[0]
	cfg := metav1ac.OwnerReference().WithAPIVersion(ref.APIVersion).WithKind(ref.Kind).
		WithName(ref.Name).WithUID(ref.UID).WithController(true)
	if ref.BlockOwnerDeletion != nil {
		cfg.WithBlockOwnerDeletion(*ref.BlockOwnerDeletion)
	}
	return cfg, nil
}
