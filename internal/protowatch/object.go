package protowatch

import (
	"encoding/binary"
	"fmt"
)

// Marshaler is the generated protobuf code that writes a built-in kind.
type Marshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// Encode returns obj's protobuf as the API server reads a request body of
// content type application/vnd.kubernetes.protobuf: the magic prefix and
// a runtime.Unknown of apiVersion and kind around the object's own bytes.
// client-go's serializer writes the same, through the scheme, setting and
// clearing obj's apiVersion and kind on the way.
func Encode(apiVersion, kind string, obj Marshaler) ([]byte, error) {
	typeMeta := fieldSize(1, len(apiVersion)) + fieldSize(2, len(kind))
	n := obj.Size()
	b := make([]byte, 0, len(magic)+fieldSize(1, typeMeta)+fieldSize(2, n))
	b = append(b, magic...)
	b = appendTag(b, 1, typeMeta)
	b = append(appendTag(b, 1, len(apiVersion)), apiVersion...)
	b = append(appendTag(b, 2, len(kind)), kind...)
	b = appendTag(b, 2, n)
	start := len(b)
	b = b[:start+n]
	if _, err := obj.MarshalToSizedBuffer(b[start:]); err != nil {
		return nil, fmt.Errorf("protowatch: encoding %s: %w", kind, err)
	}
	return b, nil
}

// fieldSize is the size of a length-delimited field of n bytes.
func fieldSize(num, n int) int { return uvarintLen(num<<3|wireBytes) + uvarintLen(n) + n }

func appendTag(b []byte, num, n int) []byte {
	b = binary.AppendUvarint(b, uint64(num<<3|wireBytes))
	return binary.AppendUvarint(b, uint64(n))
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}

// Decode decodes body, an answer of content type
// application/vnd.kubernetes.protobuf, into obj, a new object of the kind
// named kind ("ConfigMap", or "ConfigMapList"): from body's own bytes,
// where client-go's serializer decodes a copy of them. It reports false,
// and leaves obj alone, when body holds another kind (a Status), which
// client-go's decoder knows what to make of.
func Decode(body []byte, kind string, obj Object) (bool, error) {
	k, raw, err := unwrap(body)
	if err != nil {
		return false, fmt.Errorf("protowatch: %s: %w", kind, err)
	}
	if string(k) != kind {
		return false, nil
	}
	if err := obj.Unmarshal(raw); err != nil {
		return false, fmt.Errorf("protowatch: %s: %w", kind, err)
	}
	return true, nil
}
