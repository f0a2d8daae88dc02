package conversion_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/conversion"
)

// Kinds that go wrong one way each, in group broken.steady.test. The
// version types are generic only so that each version gets a Go type of
// its own; V is a marker.
const brokenGroup = "broken.steady.test"

type (
	orphanV1  struct{} // Orphan: two spokes, no hub
	orphanV2  struct{}
	twinV1    struct{} // Twin: two hubs
	twinV2    struct{}
	oddV1     struct{} // Odd: a hub and a version that is neither
	oddV2     struct{}
	unmetaV1  struct{} // Unmeta: metadata not embedded
	unmetaV2  struct{}
	loneV1    struct{} // Lone: a hub alone
	wrongHub1 struct{} // WrongHub: a spoke that asserts another hub type
	wrongHub2 struct{}
)

// fields are every test type's fields.
type fields struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              string `json:"spec,omitempty"`
}

func (f *fields) copyFields() fields {
	out := *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

type hub[V any] struct{ fields }

func (*hub[V]) Hub() {}
func (h *hub[V]) DeepCopyObject() runtime.Object {
	return &hub[V]{h.copyFields()}
}

// spoke converts to and from the hub whose marker is H.
type spoke[V, H any] struct{ fields }

func (s *spoke[V, H]) ConvertTo(dst conversion.Hub) error {
	h, ok := dst.(*hub[H])
	if !ok {
		return fmt.Errorf("spoke converts to %T, not %T", &hub[H]{}, dst)
	}
	h.fields = s.copyFields()
	return nil
}

func (s *spoke[V, H]) ConvertFrom(src conversion.Hub) error {
	h, ok := src.(*hub[H])
	if !ok {
		return fmt.Errorf("spoke converts from %T, not %T", &hub[H]{}, src)
	}
	s.fields = h.copyFields()
	return nil
}

func (s *spoke[V, H]) DeepCopyObject() runtime.Object {
	return &spoke[V, H]{s.copyFields()}
}

type neither[V any] struct{ fields }

func (n *neither[V]) DeepCopyObject() runtime.Object {
	return &neither[V]{n.copyFields()}
}

// unmeta names its metadata instead of embedding it.
type unmeta[V any] struct {
	metav1.TypeMeta `json:",inline"`
	Meta            metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (u *unmeta[V]) DeepCopyObject() runtime.Object {
	out := *u
	u.Meta.DeepCopyInto(&out.Meta)
	return &out
}

type unmetaHub struct{ unmeta[unmetaV1] }

func (*unmetaHub) Hub() {}

type unmetaSpoke struct{ unmeta[unmetaV2] }

func (*unmetaSpoke) ConvertTo(conversion.Hub) error   { return nil }
func (*unmetaSpoke) ConvertFrom(conversion.Hub) error { return nil }

func brokenGVK(version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: brokenGroup, Version: version, Kind: kind}
}

// addBroken registers the broken kinds in s.
func addBroken(s *runtime.Scheme) {
	s.AddKnownTypeWithName(brokenGVK("v1", "Orphan"), &spoke[orphanV1, loneV1]{})
	s.AddKnownTypeWithName(brokenGVK("v2", "Orphan"), &spoke[orphanV2, loneV1]{})
	s.AddKnownTypeWithName(brokenGVK("v1", "Twin"), &hub[twinV1]{})
	s.AddKnownTypeWithName(brokenGVK("v2", "Twin"), &hub[twinV2]{})
	s.AddKnownTypeWithName(brokenGVK("v1", "Odd"), &hub[oddV1]{})
	s.AddKnownTypeWithName(brokenGVK("v2", "Odd"), &neither[oddV2]{})
	s.AddKnownTypeWithName(brokenGVK("v1", "Unmeta"), &unmetaHub{})
	s.AddKnownTypeWithName(brokenGVK("v2", "Unmeta"), &unmetaSpoke{})
	s.AddKnownTypeWithName(brokenGVK("v1", "Lone"), &hub[loneV1]{})
	s.AddKnownTypeWithName(brokenGVK("v1", "WrongHub"), &hub[wrongHub1]{})
	s.AddKnownTypeWithName(brokenGVK("v2", "WrongHub"), &spoke[wrongHub2, loneV1]{})
	s.AddKnownTypeWithName(brokenGVK("v3", "WrongHub"), &spoke[wrongHub2, loneV1]{})
}

// Gizmo, in group gizmo.steady.test, has conversions that meddle with
// metadata: v1beta1's ConvertTo never copies it, and its ConvertFrom
// renames the object, changes its UID and generation, drops the label
// "drop" and adds the annotation "stash".
type gizmoV1 struct{ fields }

func (*gizmoV1) Hub() {}
func (g *gizmoV1) DeepCopyObject() runtime.Object {
	return &gizmoV1{g.copyFields()}
}

type gizmoV1beta1 struct{ fields }

func (g *gizmoV1beta1) ConvertTo(dst conversion.Hub) error {
	dst.(*gizmoV1).Spec = g.Spec
	return nil
}

func (g *gizmoV1beta1) ConvertFrom(src conversion.Hub) error {
	hub := src.(*gizmoV1)
	g.fields = hub.copyFields()
	g.Name, g.UID, g.Generation = "renamed", "other-uid", 99
	delete(g.Labels, "drop")
	if g.Annotations == nil {
		g.Annotations = map[string]string{}
	}
	g.Annotations["stash"] = "kept by the conversion"
	return nil
}

func (g *gizmoV1beta1) DeepCopyObject() runtime.Object {
	return &gizmoV1beta1{g.copyFields()}
}

func addGizmo(s *runtime.Scheme) {
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: "gizmo.steady.test", Version: "v1", Kind: "Gizmo"}, &gizmoV1{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: "gizmo.steady.test", Version: "v1beta1", Kind: "Gizmo"}, &gizmoV1beta1{})
}
