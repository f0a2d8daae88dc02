package conversiontest

import "time"

// Option configures RoundTrip.
type Option func(*options)

type options struct {
	objects int
	seed    int64
	funcs   []any
}

// WithObjects sets how many random objects RoundTrip tries per version,
// 100 by default.
func WithObjects(n int) Option { return func(o *options) { o.objects = n } }

// WithSeed makes RoundTrip's objects those of seed, to repeat a run that
// failed: its report names the seed it used. Without it the seed differs
// from run to run, so that repeated runs try more objects.
func WithSeed(seed int64) Option { return func(o *options) { o.seed = seed } }

// WithFuncs gives RoundTrip fill functions for the types that random
// values do not suit: a string that must be one of a few values, a field
// the conversion derives from another. Each is a
// func(*T, randfill.Continue), as sigs.k8s.io/randfill's Filler.Funcs
// takes them, and replaces the default for T. randfill.Continue's Fill
// and FillNoCustom fill the rest of a value at random.
//
// By default TypeMeta is left empty, ObjectMeta gets a name, a namespace,
// labels and annotations, Quantities and IntOrStrings valid values, and
// RawExtensions a small JSON object; interface-typed fields need a
// function of their own.
func WithFuncs(funcs ...any) Option { return func(o *options) { o.funcs = append(o.funcs, funcs...) } }

func newOptions(opts []Option) *options {
	o := &options{objects: 100, seed: time.Now().UnixNano()}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}
