package conversiontest

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/randfill"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/metadata"
)

// RoundTrip checks the conversions of kind gk in scheme: first with
// conversion.CheckKind, then, for every version but the hub, that random
// objects of that version come back from spoke -> hub -> spoke
// semantically equal (equality.Semantic.DeepEqual; reflect.DeepEqual for
// values it cannot compare) to what they were.
// Each conversion is made as conversion's handler makes it, metadata
// apart from labels and annotations restored from its source, but without
// JSON in between.
//
// For each version with a difference RoundTrip reports the first one, with
// its Go field path, both values and the seed that repeats it (WithSeed),
// through t.Errorf; so too a conversion's error or panic, and a type it
// cannot fill (see WithFuncs). It calls only t.Helper and t.Errorf.
func RoundTrip(t testing.TB, scheme *runtime.Scheme, gk schema.GroupKind, opts ...Option) {
	t.Helper()
	o := newOptions(opts)
	if o.objects <= 0 {
		t.Errorf("conversiontest: WithObjects(%d): the number of objects must be positive", o.objects)
		return
	}
	if err := conversion.CheckKind(scheme, gk); err != nil {
		t.Errorf("conversiontest: %s: %v", gk, err)
		return
	}
	hub, spokes := versions(scheme, gk)
	for _, spoke := range spokes {
		f, err := newFiller(o.seed, o.funcs)
		if err != nil {
			t.Errorf("conversiontest: WithFuncs: %v", err)
			return
		}
		if msg := roundTrips(scheme, f, gk.WithVersion(spoke), hub, o.objects); msg != "" {
			t.Errorf("conversiontest: %s %s -> %s -> %s: %s (WithSeed(%d) repeats it)", gk, spoke, hub.Version, spoke, msg, o.seed)
		}
	}
}

// versions returns the hub of gk, which CheckKind has checked, and the
// other versions, most stable first.
func versions(scheme *runtime.Scheme, gk schema.GroupKind) (hub schema.GroupVersionKind, spokes []string) {
	for gvk := range scheme.AllKnownTypes() {
		if gvk.GroupKind() != gk || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		if obj, err := scheme.New(gvk); err == nil {
			if _, ok := obj.(conversion.Hub); ok {
				hub = gvk
				continue
			}
		}
		spokes = append(spokes, gvk.Version)
	}
	slices.SortFunc(spokes, func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })
	return hub, spokes
}

// roundTrips converts n random objects of version spoke to the hub and
// back, and describes the first that went wrong, or returns "".
func roundTrips(scheme *runtime.Scheme, f *randfill.Filler, spoke, hub schema.GroupVersionKind, n int) string {
	for i := range n {
		obj, err := scheme.New(spoke)
		if err != nil {
			return err.Error()
		}
		if err := fill(f, obj); err != nil {
			return fmt.Sprintf("filling %T: %v: give WithFuncs a function for that type", obj, err)
		}
		// Compared with a copy, in case a conversion changes its source.
		want := obj.DeepCopyObject()
		got, err := roundTrip(scheme, obj, spoke, hub)
		if err != nil {
			return fmt.Sprintf("object %d of %d: %v", i+1, n, err)
		}
		want.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		got.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		if !semanticEqual(want, got) {
			return fmt.Sprintf("object %d of %d changed: %s", i+1, n, difference(want, got))
		}
	}
	return ""
}

// roundTrip converts obj to a new hub and from it to a new object of
// obj's version, turning a panic into an error.
func roundTrip(scheme *runtime.Scheme, obj runtime.Object, spoke, hubGVK schema.GroupVersionKind) (back runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			back, err = nil, fmt.Errorf("conversion panicked: %v", p)
		}
	}()
	h, err := scheme.New(hubGVK)
	if err != nil {
		return nil, err
	}
	b, err := scheme.New(spoke)
	if err != nil {
		return nil, err
	}
	// CheckKind saw to these types.
	hub, from, to := h.(conversion.Hub), obj.(conversion.Convertible), b.(conversion.Convertible)
	if err := from.ConvertTo(hub); err != nil {
		return nil, fmt.Errorf("ConvertTo: %w", err)
	}
	if err := metadata.Keep(obj, hub); err != nil {
		return nil, err
	}
	if err := to.ConvertFrom(hub); err != nil {
		return nil, fmt.Errorf("ConvertFrom: %w", err)
	}
	if err := metadata.Keep(hub, to); err != nil {
		return nil, err
	}
	return to, nil
}
