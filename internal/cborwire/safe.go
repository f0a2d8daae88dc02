package cborwire

import (
	"encoding"
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Safe reports whether a value of type t comes back from CBOR equal to
// what it comes back as from JSON, which is the API server's form of a
// custom resource: plain data and the apimachinery types that encode
// themselves for CBOR as they do for JSON. A type with a JSON or text
// marshaller of its own may not (runtime.RawExtension keeps its bytes in
// the form it was decoded from), nor may an interface value. FieldsV1 is
// safe on the wire (the CBOR serializer hands it over as JSON) but keeps
// CBOR when decoded with package direct: callers that do check.
func Safe(t reflect.Type) bool { return safe(t, map[reflect.Type]bool{}) }

func safe(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // a pointer has its element's methods too
	}
	if ok, known := knownTypes[t]; known {
		return ok
	}
	if seen[t] {
		return true // a recursive type: its other fields decide
	}
	seen[t] = true
	pt := reflect.PointerTo(t)
	for _, m := range customMarshalers {
		if t.Implements(m) || pt.Implements(m) {
			return false
		}
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer, reflect.Uintptr:
		return false
	case reflect.Slice, reflect.Array:
		return safe(t.Elem(), seen)
	case reflect.Map:
		return safe(t.Key(), seen) && safe(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if (f.IsExported() || f.Anonymous) && f.Tag.Get("json") != "-" && !safe(f.Type, seen) {
				return false
			}
		}
	}
	return true
}

var knownTypes = map[reflect.Type]bool{
	reflect.TypeFor[metav1.Time]():          true,
	reflect.TypeFor[metav1.MicroTime]():     true,
	reflect.TypeFor[resource.Quantity]():    true,
	reflect.TypeFor[intstr.IntOrString]():   true,
	reflect.TypeFor[metav1.FieldsV1]():      true,
	reflect.TypeFor[runtime.RawExtension](): false,
}

var customMarshalers = []reflect.Type{
	reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
	reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
}
