package protowatch

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Field numbers of the built-in kinds' protobuf: every object has its
// ObjectMeta at 1 (checked by metadataFirst), and ObjectMeta has managedFields
// at 17.
const (
	metadataField      = 1
	managedFieldsField = 17
)

// metadataFirst reports whether obj's Go type, a pointer to a struct, has
// its ObjectMeta at protobuf field 1, as every built-in kind has.
func metadataFirst(obj Object) bool {
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	f, ok := t.Elem().FieldByName("ObjectMeta")
	return ok && f.Type == reflect.TypeFor[metav1.ObjectMeta]() && strings.HasPrefix(f.Tag.Get("protobuf"), "bytes,1,")
}

// metaOf returns obj's ObjectMeta, or nil.
func metaOf(obj Object) *metav1.ObjectMeta {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil
	}
	m, _ := a.GetObjectMeta().(*metav1.ObjectMeta)
	return m
}

// unmarshalWithoutManaged decodes b into obj, whose ObjectMeta is meta,
// leaving out metadata.managedFields. Protobuf decodes a message's fields
// one by one, and a generated Unmarshal adds to what its object holds, so
// decoding runs of b's fields in turn (the object's other fields into obj,
// its metadata's but managedFields into meta) makes the object one
// Unmarshal of b would, without them: no copy of b, and no managedFields
// entry allocated only to be dropped.
func unmarshalWithoutManaged(obj Object, meta *metav1.ObjectMeta, b []byte) error {
	run := 0 // the start of the fields not yet decoded
	for i := 0; i < len(b); {
		f, err := next(b[i:])
		if err != nil {
			return err
		}
		if f.num == metadataField && f.wire == wireBytes {
			if err := unmarshalRun(obj, b[run:i]); err != nil {
				return err
			}
			if err := unmarshalMeta(meta, f.val); err != nil {
				return err
			}
			run = i + f.size
		}
		i += f.size
	}
	return unmarshalRun(obj, b[run:])
}

// unmarshalMeta decodes ObjectMeta b into meta without managedFields.
func unmarshalMeta(meta *metav1.ObjectMeta, b []byte) error {
	run := 0
	for i := 0; i < len(b); {
		f, err := next(b[i:])
		if err != nil {
			return err
		}
		if f.num == managedFieldsField {
			if err := unmarshalRun(meta, b[run:i]); err != nil {
				return err
			}
			run = i + f.size
		}
		i += f.size
	}
	return unmarshalRun(meta, b[run:])
}

func unmarshalRun(m interface{ Unmarshal([]byte) error }, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return m.Unmarshal(b)
}
