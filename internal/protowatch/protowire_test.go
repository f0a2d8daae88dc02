package protowatch_test

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/internal/protowatch"
)

// The fuzzers judge protobuf with protowire, protobuf's own parser, and
// cut managedFields with it: independently of the package's walker.

// fieldsOf returns the values of message b's length-delimited fields by
// number, in order, or false if b is not well-formed protobuf for
// protowire, or has a group (which the package refuses).
func fieldsOf(b []byte) (map[protowire.Number][][]byte, bool) {
	out := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, false
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			out[num] = append(out[num], v)
		}
		b = b[n+m:]
	}
	return out, true
}

func last(vs [][]byte) []byte {
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1]
}

// wellFormed reports whether the messages of a watch frame that a Kind
// walks (the WatchEvent, its RawExtension, the envelope and its TypeMeta)
// are well-formed.
func wellFormed(frame []byte) bool {
	ev, ok := fieldsOf(frame)
	if !ok {
		return false
	}
	ext, ok := fieldsOf(last(ev[2]))
	if !ok {
		return false
	}
	return wellFormedObject(last(ext[1]))
}

// wellFormedObject reports whether an answer's envelope and its TypeMeta
// are well-formed; an answer without the magic prefix is not protobuf.
func wellFormedObject(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("k8s\x00")) {
		return false
	}
	u, ok := fieldsOf(b[4:])
	if !ok {
		return false
	}
	_, ok = fieldsOf(last(u[1]))
	return ok
}

// fieldwise reports whether object b, of newObject's kind, is
// well-formed, and decodes field by field, and its metadata's fields
// (but managedFields) each on its own too: as well-formed protobuf does,
// whose fields each hold all their bytes. A Kind that drops managedFields
// decodes runs of fields, and the generated code reads a map entry's
// value past the entry's end when the message goes on: it decodes some
// malformed objects whole, and not in runs.
func fieldwise(b []byte, newObject func() protowatch.Object) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return false
		}
		if num == 1 && typ == protowire.BytesType {
			meta, _ := protowire.ConsumeBytes(b[protowire.SizeTag(1):])
			for len(meta) > 0 {
				mnum, mtyp, m := protowire.ConsumeField(meta)
				if m < 0 || mtyp == protowire.StartGroupType || mtyp == protowire.EndGroupType {
					return false
				}
				if mnum != 17 && (&metav1.ObjectMeta{}).Unmarshal(meta[:m]) != nil {
					return false
				}
				meta = meta[m:]
			}
		} else if newObject().Unmarshal(b[:n]) != nil {
			return false
		}
		b = b[n:]
	}
	return true
}

// objectRaw returns the object's protobuf in a watch frame, read with the
// generated code, or nil.
func objectRaw(frame []byte) []byte {
	var ev metav1.WatchEvent
	if ev.Unmarshal(frame) != nil || !bytes.HasPrefix(ev.Object.Raw, []byte("k8s\x00")) {
		return nil
	}
	var u runtime.Unknown
	if u.Unmarshal(ev.Object.Raw[4:]) != nil {
		return nil
	}
	return u.Raw
}

// cutManaged returns object b without its metadata's managedFields (field
// 17 of each ObjectMeta, field 1 of the object), or false if b or a
// metadata field is not well-formed.
func cutManaged(b []byte) ([]byte, bool) {
	var out []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, false
		}
		if num != 1 || typ != protowire.BytesType {
			out = append(out, b[:n+m]...)
			b = b[n+m:]
			continue
		}
		meta, _ := protowire.ConsumeBytes(b[n:])
		kept, ok := withoutField(meta, 17)
		if !ok {
			return nil, false
		}
		out = protowire.AppendBytes(protowire.AppendTag(out, 1, protowire.BytesType), kept)
		b = b[n+m:]
	}
	return out, true
}

// withoutField returns message b without its fields num, or false if b is
// not well-formed.
func withoutField(b []byte, num protowire.Number) ([]byte, bool) {
	out := []byte{}
	for len(b) > 0 {
		n := 0
		got, typ, m := protowire.ConsumeTag(b)
		if m < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return nil, false
		}
		n += m
		if m = protowire.ConsumeFieldValue(got, typ, b[n:]); m < 0 {
			return nil, false
		}
		n += m
		if got != num {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out, true
}
