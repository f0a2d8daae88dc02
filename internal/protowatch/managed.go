package protowatch

import (
	"encoding/binary"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Field numbers of the built-in kinds' protobuf: every object has its
// ObjectMeta at 1 (checked by metadataFirst), every list its items at 2
// (itemsSecond), and ObjectMeta has managedFields at 17.
const (
	metadataField      = 1
	itemsField         = 2
	managedFieldsField = 17
)

// metadataFirst reports whether t, a struct or a pointer to one, has its
// metav1.ObjectMeta at protobuf field 1, as cutting managedFields assumes.
func metadataFirst(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == reflect.TypeFor[metav1.ObjectMeta]() {
			return strings.HasPrefix(f.Tag.Get("protobuf"), "bytes,1,")
		}
	}
	return false
}

// itemsSecond reports whether t, a list type, has its items at protobuf
// field 2 and they have their metadata at 1.
func itemsSecond(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	f, ok := t.FieldByName("Items")
	return ok && f.Type.Kind() == reflect.Slice && strings.HasPrefix(f.Tag.Get("protobuf"), "bytes,2,") &&
		metadataFirst(f.Type.Elem())
}

// hasManagedFields reports whether the object obj has managedFields in
// its metadata, so that the common case (none) costs one scan and no copy.
// It walks every field of obj and of its metadata, so that the functions
// below, which rely on that, need not check them again.
func hasManagedFields(obj []byte) (bool, error) {
	found := false
	for len(obj) > 0 {
		f, err := next(obj)
		if err != nil {
			return false, err
		}
		if f.num == metadataField && f.wire == wireBytes {
			for meta := f.val; len(meta) > 0; {
				m, err := next(meta)
				if err != nil {
					return false, err
				}
				found = found || m.num == managedFieldsField
				meta = meta[m.size:]
			}
		}
		obj = obj[f.size:]
	}
	return found, nil
}

// strippedSize returns the size of obj without its managedFields. obj
// has been walked by hasManagedFields: it is well formed.
func strippedSize(obj []byte) int {
	size := 0
	for len(obj) > 0 {
		f, _ := next(obj)
		if f.num == metadataField && f.wire == wireBytes {
			n := metaSize(f.val)
			size += f.tag + uvarintLen(n) + n
		} else {
			size += f.size
		}
		obj = obj[f.size:]
	}
	return size
}

// metaSize returns the size of ObjectMeta bytes meta without field 17.
func metaSize(meta []byte) int {
	size := len(meta)
	for len(meta) > 0 {
		m, _ := next(meta)
		if m.num == managedFieldsField {
			size -= m.size
		}
		meta = meta[m.size:]
	}
	return size
}

// appendStripped appends obj without its managedFields to dst, fixing
// the length of the metadata field around them.
func appendStripped(dst, obj []byte) []byte {
	for len(obj) > 0 {
		f, _ := next(obj)
		if f.num != metadataField || f.wire != wireBytes {
			dst = append(dst, obj[:f.size]...)
			obj = obj[f.size:]
			continue
		}
		dst = append(dst, obj[:f.tag]...)
		dst = binary.AppendUvarint(dst, uint64(metaSize(f.val)))
		for meta := f.val; len(meta) > 0; {
			m, _ := next(meta)
			if m.num != managedFieldsField {
				dst = append(dst, meta[:m.size]...)
			}
			meta = meta[m.size:]
		}
		obj = obj[f.size:]
	}
	return dst
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}
