package protowatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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

// next reads the field b starts with. Like protobuf's own parser
// (protowire), it refuses field number 0 and numbers past 2^31-1: the
// generated code truncates a tag's number to 32 bits, so such a field
// would be skipped here and decoded there as another. It refuses groups,
// which nothing in Kubernetes writes and the generated code skips.
func next(b []byte) (field, error) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, errTruncated
	}
	f := field{num: tag >> 3, wire: tag & 7}
	if f.num == 0 || f.num > math.MaxInt32 {
		return field{}, fmt.Errorf("invalid protobuf field number %d", f.num)
	}
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

// checkWire refuses f, a field of a message whose fields 1 to known are
// all length-delimited, if it is one of those with another wire type, as
// the generated code does.
func checkWire(f field, known uint64) error {
	if f.num <= known && f.wire != wireBytes {
		return fmt.Errorf("wrong protobuf wire type %d for field %d", f.wire, f.num)
	}
	return nil
}

// bytesField returns the last field num of message b (the last, as
// protobuf lets later fields override earlier ones), or nil if b has
// none. Fields 1 to known of b are length-delimited.
//
// A message that is a field of another may come in several fields too,
// which protobuf merges: the value of a field of it is the last in any
// of them, so its callers keep the one before when one has none.
func bytesField(b []byte, num, known uint64) ([]byte, error) {
	var out []byte
	for len(b) > 0 {
		f, err := next(b)
		if err != nil {
			return nil, err
		}
		if err := checkWire(f, known); err != nil {
			return nil, err
		}
		if f.num == num {
			out = f.val
		}
		b = b[f.size:]
	}
	return out, nil
}

// unwrap returns the kind and raw bytes of a serialized runtime.Unknown:
// the magic prefix, then TypeMeta (1: apiVersion, 2: kind) at field 1, raw
// at field 2, contentEncoding and contentType at 3 and 4.
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
		if err := checkWire(f, 4); err != nil {
			return nil, nil, err
		}
		switch f.num {
		case 1: // TypeMeta
			k, err := bytesField(f.val, 2, 2)
			if err != nil {
				return nil, nil, err
			}
			if k != nil {
				kind = k
			}
		case 2:
			raw = f.val
		}
		b = b[f.size:]
	}
	return kind, raw, nil
}
