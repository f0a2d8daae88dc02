package protowatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// magic starts every protobuf message apimachinery's serializer writes.
var magic = []byte("k8s\x00")

const wireBytes = 2 // the wire type of length-delimited fields

// field is one field of a protobuf message.
type field struct {
	num  uint64
	wire uint64
	val  []byte // a length-delimited field's bytes; nil for other types
	size int    // the whole field's size: tag, length and value
}

var errTruncated = errors.New("truncated protobuf")

// next reads the field b starts with.
func next(b []byte) (field, error) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, errTruncated
	}
	f := field{num: tag >> 3, wire: tag & 7}
	switch f.wire {
	case 0: // varint
		_, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return field{}, errTruncated
		}
		f.size = n + m
	case 1: // fixed64
		f.size = n + 8
	case wireBytes:
		l, m := binary.Uvarint(b[n:])
		if m <= 0 || l > uint64(len(b)-n-m) {
			return field{}, errTruncated
		}
		f.size = n + m + int(l)
		f.val = b[n+m : f.size]
	case 5: // fixed32
		f.size = n + 4
	default:
		return field{}, fmt.Errorf("unsupported protobuf wire type %d", f.wire)
	}
	if f.size > len(b) {
		return field{}, errTruncated
	}
	return f, nil
}

// bytesField returns the last length-delimited field num of message b (the
// last, as protobuf lets later fields override earlier ones), or nil.
func bytesField(b []byte, num uint64) ([]byte, error) {
	var out []byte
	for len(b) > 0 {
		f, err := next(b)
		if err != nil {
			return nil, err
		}
		if f.num == num && f.wire == wireBytes {
			out = f.val
		}
		b = b[f.size:]
	}
	return out, nil
}

// unwrap returns the kind and raw bytes of a serialized runtime.Unknown:
// the magic prefix, then TypeMeta at field 1 and raw at field 2.
func unwrap(b []byte) (kind, raw []byte, err error) {
	if !bytes.HasPrefix(b, magic) {
		return nil, nil, fmt.Errorf("not protobuf: no %q prefix", magic)
	}
	b = b[len(magic):]
	for len(b) > 0 {
		f, err := next(b)
		if err != nil {
			return nil, nil, err
		}
		if f.wire == wireBytes {
			switch f.num {
			case 1:
				if kind, err = bytesField(f.val, 2); err != nil {
					return nil, nil, err
				}
			case 2:
				raw = f.val
			}
		}
		b = b[f.size:]
	}
	return kind, raw, nil
}
