package fieldcodec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// plainStructs have JSON methods of their own, but their exported fields
// hold all they are, and JSON gives them back as they were: they are
// encoded as structs.
var plainStructs = map[reflect.Type]bool{
	reflect.TypeFor[intstr.IntOrString](): true,
	reflect.TypeFor[metav1.Duration]():    true,
}

var (
	timeType        = reflect.TypeFor[metav1.Time]()
	microTimeType   = reflect.TypeFor[metav1.MicroTime]()
	quantityType    = reflect.TypeFor[resource.Quantity]()
	rawExtensionTyp = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type    = reflect.TypeFor[metav1.FieldsV1]()
)

// apimachineryPlan returns the plan of an apimachinery type whose fields
// are not all exported, or nil.
func apimachineryPlan(t reflect.Type) *plan {
	switch t {
	case timeType:
		return &plan{
			enc: func(e *encoder, v reflect.Value) { encodeTime(e, addr[metav1.Time](v).Time) },
			dec: func(d *decoder, v reflect.Value) { decodeTime(d, &addr[metav1.Time](v).Time) },
		}
	case microTimeType:
		return &plan{
			enc: func(e *encoder, v reflect.Value) { encodeTime(e, addr[metav1.MicroTime](v).Time) },
			dec: func(d *decoder, v reflect.Value) { decodeTime(d, &addr[metav1.MicroTime](v).Time) },
		}
	case quantityType:
		return &plan{enc: encodeQuantity, dec: decodeQuantity}
	case fieldsV1Type: // its Raw field is tagged json:"-", and may become a string
		return &plan{
			enc: func(e *encoder, v reflect.Value) { e.bytes(addr[metav1.FieldsV1](v).GetRawBytes()) },
			dec: func(d *decoder, v reflect.Value) { addr[metav1.FieldsV1](v).SetRawBytes(d.view()) },
		}
	case rawExtensionTyp:
		return &plan{enc: encodeRawExtension, dec: func(d *decoder, v reflect.Value) {
			addr[runtime.RawExtension](v).Raw = d.bytes()
		}}
	}
	return nil
}

// addr returns a pointer to v's value: v itself when addressable (the
// fields of an object, what a decoder fills), else a copy (map values).
func addr[T any](v reflect.Value) *T {
	if v.CanAddr() {
		return v.Addr().Interface().(*T)
	}
	x := v.Interface().(T)
	return &x
}

// Locations of encoded times, in the low bits of their first varint.
const (
	zeroTime  = 0 // the whole encoding
	utcTime   = 1
	localTime = 2 // and any location but UTC, which JSON decodes as Local
)

// encodeTime encodes t as its nanoseconds and location, then its Unix
// seconds: 6 bytes for a time of this century to the second. A
// monotonic clock reading is dropped. Only the zero Time is encoded as
// zero: the zero instant in Local, which JSON decodes from
// "0001-01-01T00:00:00Z", keeps its location.
func encodeTime(e *encoder, t time.Time) {
	if t.IsZero() && t.Location() == time.UTC {
		e.uvarint(zeroTime)
		return
	}
	loc := uint64(localTime)
	if t.Location() == time.UTC {
		loc = utcTime
	}
	e.uvarint(uint64(t.Nanosecond())<<2 | loc)
	e.varint(t.Unix())
}

func decodeTime(d *decoder, t *time.Time) {
	h := d.uvarint()
	if h == zeroTime {
		return
	}
	loc, nsec := h&3, h>>2
	sec := d.varint()
	if nsec >= uint64(time.Second) || (loc != utcTime && loc != localTime) {
		d.fail("bad time")
		return
	}
	*t = time.Unix(sec, int64(nsec))
	if loc == utcTime {
		*t = t.UTC()
	}
}

// encodeQuantity encodes a quantity as its canonical string, as JSON
// does; the zero Quantity (a field JSON did not set) as an empty one.
func encodeQuantity(e *encoder, v reflect.Value) {
	if v.IsZero() {
		e.uvarint(0)
		return
	}
	q := v.Interface().(resource.Quantity) // a copy: String caches its result
	e.string(q.String())
}

func decodeQuantity(d *decoder, v reflect.Value) {
	s := d.string()
	if s == "" {
		return
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		d.fail("quantity %q: %v", s, err)
		return
	}
	*addr[resource.Quantity](v) = q
}

// encodeRawExtension encodes Raw, or, for an extension that holds only
// an Object, the Object's JSON: what it decodes to from JSON.
func encodeRawExtension(e *encoder, v reflect.Value) {
	re := addr[runtime.RawExtension](v)
	raw := re.Raw
	if raw == nil && re.Object != nil {
		var err error
		if raw, err = json.Marshal(re.Object); err != nil && e.err == nil {
			e.err = fmt.Errorf("RawExtension's %T: %w", re.Object, err)
		}
	}
	e.bytes(raw)
}
