package metadata

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Keep gives dst, the result of converting src, the metadata of src apart
// from labels and annotations: the only part of it the API server lets a
// conversion change (it rejects a new name, namespace or UID and quietly
// restores the rest). Labels and annotations stay as the conversion left
// them, so that a conversion can keep fields the other version lacks in
// annotations; but if it left dst's metadata empty, it never copied it,
// and the source's labels and annotations are kept too instead of lost.
//
// Both objects must embed metav1.ObjectMeta. dst may share maps with src
// afterwards, as a conversion's result usually does.
func Keep(src, dst runtime.Object) error {
	from, ok := Of(src)
	if !ok {
		return fmt.Errorf("%T does not embed metav1.ObjectMeta", src)
	}
	to, ok := Of(dst)
	if !ok {
		return fmt.Errorf("%T does not embed metav1.ObjectMeta", dst)
	}
	if reflect.ValueOf(to).Elem().IsZero() {
		*to = *from
		return nil
	}
	labels, annotations := to.Labels, to.Annotations
	*to = *from
	to.Labels, to.Annotations = labels, annotations
	return nil
}

// Of returns the ObjectMeta that obj embeds.
func Of(obj runtime.Object) (*metav1.ObjectMeta, bool) {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, false
	}
	m, ok := a.GetObjectMeta().(*metav1.ObjectMeta)
	return m, ok && m != nil
}
