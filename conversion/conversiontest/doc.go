// Package conversiontest checks, in a kind's unit tests, that its
// conversions lose nothing: what package conversion's handler will do
// when the API server stores an object in one version and serves it in
// another.
//
// RoundTrip fills random objects of every version of a kind but its hub,
// converts each to the hub and back as the handler would, and compares
// the result with the original. A field a version has and the hub cannot
// hold, a field a conversion forgets, or one it converts one way but not
// the other, shows up as a difference at its Go path:
//
//	func TestWidgetConversion(t *testing.T) {
//		scheme := runtime.NewScheme()
//		utilruntime.Must(v1.AddToScheme(scheme))
//		utilruntime.Must(v1beta1.AddToScheme(scheme))
//		conversiontest.RoundTrip(t, scheme, schema.GroupKind{Group: "example.com", Kind: "Widget"})
//	}
//
// Only spoke -> hub -> spoke is checked: the hub is meant to hold every
// field of every version, so a trip from the hub through an older spoke
// may lose what the spoke lacks, unless the conversion keeps it in an
// annotation.
//
// Objects come from sigs.k8s.io/randfill, the filler of apimachinery's
// own round-trip tests, with a seed that differs from run to run and
// that a failure names. Fields whose valid values are few (an enum kept
// as a string, say) need a fill function of their own: WithFuncs.
package conversiontest
