package conversiontest_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/steadyctl/steady/conversion/conversiontest"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

// recorder is a testing.TB that keeps what RoundTrip reports. Its
// embedded TB is nil: a call to anything but Helper and Errorf panics.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// roundTrip runs RoundTrip on a recorder and returns what it reported.
func roundTrip(s *runtime.Scheme, kind string, opts ...conversiontest.Option) []string {
	r := &recorder{}
	conversiontest.RoundTrip(r, s, gk(kind), opts...)
	return r.errors
}

// wantOne fails t unless errs is one error containing every one of want.
func wantOne(t *testing.T, errs []string, want ...string) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("reported %d errors, want 1: %q", len(errs), errs)
	}
	for _, w := range want {
		if !strings.Contains(errs[0], w) {
			t.Errorf("reported %q, want it to contain %q", errs[0], w)
		}
	}
}

// Widget's three versions convert losslessly.
func TestRoundTripWidget(t *testing.T) {
	conversiontest.RoundTrip(t, widget.Scheme(), widget.GroupKind)
}

func TestRoundTripLossless(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v1alpha1": &spoke[lossless]{}, "v2": &spoke[noMeta]{}})
	if errs := roundTrip(s, "Shape"); len(errs) != 0 {
		t.Errorf("reported %q for lossless conversions", errs)
	}
}

// A field ConvertTo drops is reported with its path, for that version
// only.
func TestRoundTripLossy(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v1alpha1": &spoke[lossless]{}, "v1beta1": &spoke[dropsLabel]{}})
	wantOne(t, roundTrip(s, "Shape", conversiontest.WithSeed(7)),
		"conversiontest: Shape.round.steady.test v1beta1 -> v1 -> v1beta1: object 1 of 100 changed: Object.Spec.Label: want ", `, got ""`,
		"(WithSeed(7) repeats it)")
}

// Labels a conversion drops are lost, as in the handler; metadata a
// conversion never copies is not.
func TestRoundTripMetadata(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v2": &spoke[noMeta]{}, "v1beta1": &spoke[dropsMetaLabels]{}})
	wantOne(t, roundTrip(s, "Shape"), "v1beta1 -> v1 -> v1beta1", "ObjectMeta.Labels")
}

// The seed a failure names repeats it; another seed tries other objects.
func TestRoundTripSeed(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v1beta1": &spoke[dropsLabel]{}})
	first := roundTrip(s, "Shape")
	wantOne(t, first, "WithSeed(")
	m := regexp.MustCompile(`WithSeed\((-?\d+)\)`).FindStringSubmatch(first[0])
	seed, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if again := roundTrip(s, "Shape", conversiontest.WithSeed(seed)); len(again) != 1 || again[0] != first[0] {
		t.Errorf("WithSeed(%d) reported %q, want %q again", seed, again, first[0])
	}
	if other := roundTrip(s, "Shape", conversiontest.WithSeed(seed+1)); len(other) != 1 || other[0] == first[0] {
		t.Errorf("WithSeed(%d) reported %q, want another object than %q", seed+1, other, first[0])
	}
}

// A string with few valid values needs a fill function; given one, the
// conversion passes, over exactly WithObjects objects.
func TestRoundTripWithFuncs(t *testing.T) {
	s := scheme("Switch", map[string]runtime.Object{"v1beta1": &spoke[enum]{}})
	wantOne(t, roundTrip(s, "Switch", conversiontest.WithObjects(5)), "Spec.State: want ")

	conversions.Store(0)
	errs := roundTrip(s, "Switch", conversiontest.WithObjects(7), conversiontest.WithFuncs(func(spec *Spec, c randfill.Continue) {
		c.FillNoCustom(spec)
		spec.State = []string{"On", "Off"}[c.Intn(2)]
	}))
	if len(errs) != 0 {
		t.Errorf("reported %q with a fill function for the enum", errs)
	}
	if n := conversions.Load(); n != 7 {
		t.Errorf("converted %d objects, want 7", n)
	}
}

func TestRoundTripConversionFailures(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v1beta1": &spoke[failing]{}})
	wantOne(t, roundTrip(s, "Shape"), "v1beta1 -> v1 -> v1beta1: object 1 of 100: ConvertTo: no way to the hub")

	s = scheme("Shape", map[string]runtime.Object{"v1beta1": &spoke[panicking]{}})
	wantOne(t, roundTrip(s, "Shape"), "v1beta1 -> v1 -> v1beta1: object 1 of 100: conversion panicked: lost on the way back")
}

func TestRoundTripBadKind(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v2": &hub{}})
	wantOne(t, roundTrip(s, "Shape"), "conversiontest: Shape.round.steady.test: conversion: kind Shape.round.steady.test has 2 hubs")
	wantOne(t, roundTrip(s, "Nothing"), "Nothing.round.steady.test is not registered")
	wantOne(t, roundTrip(nil, "Shape"), "nil scheme")
}

// A field randfill cannot fill is reported, not a panic; a fill function
// for its type mends it.
func TestRoundTripUnfillable(t *testing.T) {
	s := scheme("Box", map[string]runtime.Object{"v1beta1": &withAny{}})
	wantOne(t, roundTrip(s, "Box"), "filling *conversiontest_test.withAny: ", "give WithFuncs a function for that type")
	errs := roundTrip(s, "Box", conversiontest.WithFuncs(func(v *any, c randfill.Continue) { *v = c.Intn(100) }))
	if len(errs) != 0 {
		t.Errorf("reported %q with a fill function for any", errs)
	}
}

func TestRoundTripBadOptions(t *testing.T) {
	s := scheme("Shape", map[string]runtime.Object{"v1beta1": &spoke[lossless]{}})
	wantOne(t, roundTrip(s, "Shape", conversiontest.WithObjects(0)), "conversiontest: WithObjects(0): ")
	wantOne(t, roundTrip(s, "Shape", conversiontest.WithFuncs(42)), "conversiontest: WithFuncs: ")
	wantOne(t, roundTrip(s, "Shape", conversiontest.WithFuncs(func(*Spec) {})), "conversiontest: WithFuncs: ")
}
