// Package widget is the custom resource the tests of package conversion and
// conversiontest convert: kind Widget of group convert.steady.test in three
// versions, v1 the hub and v1beta1 and v2alpha1 its spokes, written the way
// kubebuilder projects write them. Only tests import it.
//
// Every spoke survives spoke -> hub -> spoke unchanged. Two values of
// v1beta1's spec.color make its ConvertTo misbehave on purpose, so tests
// can watch the handler report a failure: ColorInvalid returns an error and
// ColorExplode panics.
package widget
