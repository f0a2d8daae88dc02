package conversiontest_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/conversion"
)

// Kinds of group round.steady.test, each with hub v1 and spokes that
// convert in one way each. The generic types give each version a Go type
// of its own; V is a marker.
const group = "round.steady.test"

func gk(kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }

func register(s *runtime.Scheme, kind, version string, obj runtime.Object) {
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, obj)
}

// Spec is every kind's spec: hub and spokes share its shape, and each
// spoke's conversion decides what crosses over.
type Spec struct {
	Sides  int               `json:"sides"`
	Colour string            `json:"colour"`
	Label  string            `json:"label"` // v1 hubs drop it
	State  string            `json:"state"` // "On" or "Off", a bool in the hub
	Tags   map[string]string `json:"tags"`
	Parts  []Part            `json:"parts"`
}

// Part is an element of Spec.Parts.
type Part struct {
	Name string `json:"name"`
	Size *int64 `json:"size"`
}

// Object is every kind's type; exported, as randfill fills only
// exported fields.
type Object[V any] struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

func (o *Object[V]) DeepCopyObject() runtime.Object {
	out := *o
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Tags = nil
	if o.Spec.Tags != nil {
		out.Spec.Tags = map[string]string{}
		for k, v := range o.Spec.Tags {
			out.Spec.Tags[k] = v
		}
	}
	out.Spec.Parts = nil
	for _, p := range o.Spec.Parts {
		if p.Size != nil {
			size := *p.Size
			p.Size = &size
		}
		out.Spec.Parts = append(out.Spec.Parts, p)
	}
	return &out
}

type hubV1 struct{}

// hub is every kind's v1.
type hub struct {
	Object[hubV1]
	On bool `json:"on"` // the form of Spec.State
}

func (*hub) Hub() {}
func (h *hub) DeepCopyObject() runtime.Object {
	return &hub{*h.Object.DeepCopyObject().(*Object[hubV1]), h.On}
}

// spoke's conversions are its funcs', fields nil doing the lossless thing.
type spoke[V any] struct {
	Object[V]
}

// How each spoke marker converts.
var behaviours = map[any]behaviour{}

type behaviour struct {
	to   func(s *Spec, h *hub) error // after copying all but Label and State
	from func(h *hub, s *Spec) error
}

func (s *spoke[V]) behaviour() behaviour { return behaviours[*new(V)] }

func (s *spoke[V]) ConvertTo(dst conversion.Hub) error {
	h, ok := dst.(*hub)
	if !ok {
		return fmt.Errorf("spoke converts to *hub, not %T", dst)
	}
	h.ObjectMeta, h.Spec = s.ObjectMeta, s.Spec
	if b := s.behaviour(); b.to != nil {
		return b.to(&s.Spec, h)
	}
	return nil
}

func (s *spoke[V]) ConvertFrom(src conversion.Hub) error {
	h, ok := src.(*hub)
	if !ok {
		return fmt.Errorf("spoke converts from *hub, not %T", src)
	}
	s.ObjectMeta, s.Spec = h.ObjectMeta, h.Spec
	if b := s.behaviour(); b.from != nil {
		return b.from(h, &s.Spec)
	}
	return nil
}

func (s *spoke[V]) DeepCopyObject() runtime.Object {
	return &spoke[V]{*s.Object.DeepCopyObject().(*Object[V])}
}

// Markers of spokes, one per behaviour.
type (
	lossless        struct{}
	dropsLabel      struct{}
	enum            struct{}
	failing         struct{}
	panicking       struct{}
	noMeta          struct{}
	dropsMetaLabels struct{}
)

// conversions counts the ConvertTo calls of enum spokes.
var conversions atomic.Int64

func init() {
	behaviours[dropsLabel{}] = behaviour{to: func(_ *Spec, h *hub) error { h.Spec.Label = ""; return nil }}
	behaviours[enum{}] = behaviour{
		to: func(s *Spec, h *hub) error {
			conversions.Add(1)
			h.On, h.Spec.State = s.State == "On", ""
			return nil
		},
		from: func(h *hub, s *Spec) error {
			s.State = map[bool]string{true: "On", false: "Off"}[h.On]
			return nil
		},
	}
	behaviours[failing{}] = behaviour{to: func(*Spec, *hub) error { return errors.New("no way to the hub") }}
	behaviours[panicking{}] = behaviour{from: func(*hub, *Spec) error { panic("lost on the way back") }}
	behaviours[noMeta{}] = behaviour{to: func(_ *Spec, h *hub) error { h.ObjectMeta = metav1.ObjectMeta{}; return nil }}
	behaviours[dropsMetaLabels{}] = behaviour{to: func(_ *Spec, h *hub) error { h.Labels = nil; return nil }}
}

// scheme registers kind with hub v1 and the given spokes.
func scheme(kind string, spokes map[string]runtime.Object) *runtime.Scheme {
	s := runtime.NewScheme()
	register(s, kind, "v1", &hub{})
	for v, obj := range spokes {
		register(s, kind, v, obj)
	}
	return s
}

// withAny is a spoke with a field of interface type, which randfill
// cannot fill without a function; it keeps it in the hub's Spec.Label.
type withAny struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Any               any `json:"any"`
}

func (w *withAny) ConvertTo(dst conversion.Hub) error {
	h := dst.(*hub)
	h.ObjectMeta, h.Spec.Label = w.ObjectMeta, fmt.Sprint(w.Any)
	return nil
}

func (w *withAny) ConvertFrom(src conversion.Hub) error {
	h := src.(*hub)
	n, err := strconv.Atoi(h.Spec.Label)
	w.ObjectMeta, w.Any = h.ObjectMeta, n
	return err
}

func (w *withAny) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}
