package predicate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

// ForKind hands a kind's events to a predicate over any object as they
// are, a delete without an object with a nil interface (not a typed nil),
// and reads only metadata exactly when the predicate does.
func TestForKind(t *testing.T) {
	var seen []object.Object
	var nilDelete bool
	anyObj := Funcs[object.Object]{
		CreateFunc: func(e event.Create[object.Object]) bool { seen = append(seen, e.Object); return e.IsInInitialList },
		UpdateFunc: func(e event.Update[object.Object]) bool { seen = append(seen, e.ObjectOld, e.ObjectNew); return true },
		DeleteFunc: func(e event.Delete[object.Object]) bool {
			nilDelete = e.Object == nil
			return e.Key.Name == "a" && e.DeleteStateUnknown
		},
		GenericFunc: func(e event.Generic[object.Object]) bool { seen = append(seen, e.Object); return false },
	}
	p := ForKind[*corev1.ConfigMap](anyObj)
	a, b := obj(), obj()
	if !p.Create(event.Create[*corev1.ConfigMap]{Object: a, IsInInitialList: true}) ||
		!p.Update(event.Update[*corev1.ConfigMap]{ObjectOld: a, ObjectNew: b}) ||
		p.Generic(event.Generic[*corev1.ConfigMap]{Object: b}) {
		t.Fatal("ForKind changed a predicate's answer")
	}
	if len(seen) != 4 || seen[0] != a || seen[1] != a || seen[2] != b || seen[3] != b {
		t.Fatalf("the predicate saw %v", seen)
	}
	if !p.Delete(event.Delete[*corev1.ConfigMap]{Key: types.NamespacedName{Namespace: "ns", Name: "a"}, DeleteStateUnknown: true}) || !nilDelete {
		t.Fatalf("a delete without an object: nil interface %v", nilDelete)
	}
	if ReadsOnlyMetadata(p) {
		t.Fatal("ForKind of a predicate of one's own reads only metadata")
	}
	if !ReadsOnlyMetadata(ForKind[*corev1.ConfigMap](GenerationChanged[object.Object]())) {
		t.Fatal("ForKind(GenerationChanged) does not read only metadata")
	}
}
