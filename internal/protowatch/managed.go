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
//
// With encode it also returns the object's protobuf without them, a new
// slice made from the runs it decoded; nil in the odd case of several
// metadata fields or many runs, which the API server does not send.
//
// With metadataOnly it decodes only the object's metadata, and returns the
// encoding (encode is implied) for the rest to be decoded from later; if
// it cannot cut one, it decodes obj whole and returns nil.
func unmarshalWithoutManaged(obj Object, meta *metav1.ObjectMeta, b []byte, encode, metadataOnly bool) ([]byte, error) {
	if metadataOnly {
		encode = true
	}
	run := 0 // the start of the fields not yet decoded
	metaAt, metaSize, metas := 0, 0, 0
	var kept metaRuns
	for i := 0; i < len(b); {
		f, err := next(b[i:])
		if err != nil {
			return nil, err
		}
		if f.num == metadataField && f.wire == wireBytes {
			if !metadataOnly {
				if err := unmarshalRun(obj, b[run:i]); err != nil {
					return nil, err
				}
			}
			if kept, err = unmarshalMeta(meta, f.val); err != nil {
				return nil, err
			}
			run = i + f.size
			metaAt, metaSize, metas = i, f.size, metas+1
		}
		i += f.size
	}
	if !metadataOnly {
		if err := unmarshalRun(obj, b[run:]); err != nil {
			return nil, err
		}
	}
	if !encode || metas != 1 || kept.n > len(kept.runs) {
		if metadataOnly { // no encoding to decode the rest from later: decode it whole now
			*meta = metav1.ObjectMeta{} // all it holds, as nothing else was decoded
			return unmarshalWithoutManaged(obj, meta, b, false, false)
		}
		return nil, nil
	}
	n := 0
	for _, r := range kept.runs[:kept.n] {
		n += len(r)
	}
	out := make([]byte, 0, len(b)-metaSize+fieldSize(metadataField, n))
	out = append(out, b[:metaAt]...)
	out = appendTag(out, metadataField, n)
	for _, r := range kept.runs[:kept.n] {
		out = append(out, r...)
	}
	return append(out, b[metaAt+metaSize:]...), nil
}

// metaRuns are the runs of an ObjectMeta's fields around its
// managedFields entries; n counts them all, even past len(runs).
type metaRuns struct {
	runs [4][]byte
	n    int
}

func (m *metaRuns) add(b []byte) {
	if len(b) == 0 {
		return
	}
	if m.n < len(m.runs) {
		m.runs[m.n] = b
	}
	m.n++
}

// unmarshalMeta decodes ObjectMeta b into meta without managedFields, and
// returns the runs of b it decoded.
func unmarshalMeta(meta *metav1.ObjectMeta, b []byte) (metaRuns, error) {
	var kept metaRuns
	run := 0
	for i := 0; i < len(b); {
		f, err := next(b[i:])
		if err != nil {
			return kept, err
		}
		if f.num == managedFieldsField {
			if err := unmarshalRun(meta, b[run:i]); err != nil {
				return kept, err
			}
			kept.add(b[run:i])
			run = i + f.size
		}
		i += f.size
	}
	kept.add(b[run:])
	return kept, unmarshalRun(meta, b[run:])
}

func unmarshalRun(m interface{ Unmarshal([]byte) error }, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return m.Unmarshal(b)
}
