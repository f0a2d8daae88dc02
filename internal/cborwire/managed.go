package cborwire

import (
	"encoding/binary"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// An informer that drops managedFields anyway need not decode them, and in
// CBOR decoding them is most of an object's cost: apimachinery decodes
// each entry's fieldsV1, a map, and encodes it again as the JSON its Go
// type holds. droppingDecoder cuts metadata.managedFields out of an
// object's CBOR, or out of each item of a list's, before it is decoded:
// CBOR is self-delimiting, so that is a copy of the bytes around them.

// droppingDecoder is a CBOR serializer whose decoding leaves out
// metadata.managedFields.
type droppingDecoder struct{ runtime.Serializer }

func (d droppingDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if cut, ok := withoutManaged(data); ok {
		data = cut
	}
	return d.Serializer.Decode(data, defaults, into)
}

// CBOR's major types, the top three bits of a data item's first byte.
const (
	majorBytes = 2
	majorText  = 3
	majorArray = 4
	majorMap   = 5
	majorTag   = 6
)

var errUnsupported = errors.New("cborwire: indefinite length or malformed CBOR")

// head reads the head of the data item at b[i:]: its major type, its
// argument (a length, a count or a value) and where its content starts.
func head(b []byte, i int) (major byte, arg uint64, next int, err error) {
	if i >= len(b) {
		return 0, 0, 0, errUnsupported
	}
	major, info := b[i]>>5, b[i]&0x1f
	switch {
	case info < 24:
		return major, uint64(info), i + 1, nil
	case info > 27: // indefinite lengths (31), reserved values
		return 0, 0, 0, errUnsupported
	}
	n := 1 << (info - 24) // 1, 2, 4 or 8 bytes
	if i+1+n > len(b) {
		return 0, 0, 0, errUnsupported
	}
	var buf [8]byte
	copy(buf[8-n:], b[i+1:i+1+n])
	return major, binary.BigEndian.Uint64(buf[:]), i + 1 + n, nil
}

// skip returns where the data item at b[i:] ends.
func skip(b []byte, i int) (int, error) { return skipNested(b, i, 0) }

// maxDepth bounds the nesting skip follows, as apimachinery's decoder
// bounds what it accepts.
const maxDepth = 64

func skipNested(b []byte, i, depth int) (int, error) {
	major, arg, next, err := head(b, i)
	if err != nil {
		return 0, err
	}
	if depth > maxDepth {
		return 0, errUnsupported
	}
	switch major {
	case majorBytes, majorText:
		if arg > uint64(len(b)-next) {
			return 0, errUnsupported
		}
		return next + int(arg), nil
	case majorArray, majorMap:
		if arg > uint64(len(b)-next) { // each item takes a byte at least
			return 0, errUnsupported
		}
		items := arg
		if major == majorMap {
			items *= 2
		}
		for range items {
			if next, err = skipNested(b, next, depth+1); err != nil {
				return 0, err
			}
		}
		return next, nil
	case majorTag:
		return skipNested(b, next, depth+1)
	}
	return next, nil // integers and simple values: the head is all
}

// text reports whether the data item at b[i:] is the string s, and where
// it ends. apimachinery's CBOR writes strings as byte strings (it leaves
// UTF-8 to the API's validation); a text string is taken too.
func text(b []byte, i int, s string) (bool, int, error) {
	major, arg, next, err := head(b, i)
	if err != nil {
		return false, 0, err
	}
	end, err := skip(b, i)
	if err != nil {
		return false, 0, err
	}
	return (major == majorBytes || major == majorText) && arg == uint64(len(s)) && string(b[next:end]) == s, end, nil
}

// edit replaces b[from:to] by with.
type edit struct {
	from, to int
	with     []byte
}

// withoutManaged returns data without the metadata.managedFields of the
// object it is, or of each item of the list it is, and whether it left
// any out.
func withoutManaged(data []byte) ([]byte, bool) {
	var edits []edit
	if err := cutObject(data, 0, &edits, true); err != nil || len(edits) == 0 {
		return nil, false
	}
	size := len(data)
	for _, e := range edits {
		size += len(e.with) - (e.to - e.from)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(append(out, data[at:e.from]...), e.with...)
		at = e.to
	}
	return append(out, data[at:]...), true
}

// cutObject adds to edits those that cut managedFields out of the map at
// b[i:]: from its metadata, and with list, from each map of its items.
func cutObject(b []byte, i int, edits *[]edit, list bool) error {
	major, pairs, next, err := head(b, i)
	// The self-described CBOR tag the API server starts with; tags within
	// tags up to the bound skip follows (not one stack frame a byte).
	for tags := 0; err == nil && major == majorTag; tags++ {
		if tags == maxDepth {
			return errUnsupported
		}
		major, pairs, next, err = head(b, next)
	}
	if err != nil {
		return err
	}
	if major != majorMap {
		return nil
	}
	for range pairs {
		isMeta, valueAt, err := text(b, next, "metadata")
		if err != nil {
			return err
		}
		isItems := false
		if list && !isMeta {
			if isItems, _, err = text(b, next, "items"); err != nil {
				return err
			}
		}
		end, err := skip(b, valueAt)
		if err != nil {
			return err
		}
		switch {
		case isMeta:
			if err := cutManaged(b, valueAt, edits); err != nil {
				return err
			}
		case isItems:
			if err := cutItems(b, valueAt, edits); err != nil {
				return err
			}
		}
		next = end
	}
	return nil
}

// cutItems cuts managedFields out of each map of the array at b[i:].
func cutItems(b []byte, i int, edits *[]edit) error {
	major, n, next, err := head(b, i)
	if err != nil || major != majorArray {
		return err
	}
	for range n {
		if err := cutObject(b, next, edits, false); err != nil {
			return err
		}
		if next, err = skip(b, next); err != nil {
			return err
		}
	}
	return nil
}

// cutManaged adds the edits that cut the managedFields pair out of the
// metadata map at b[i:]: a new head with one pair fewer, and the pair gone.
// A map with the key twice is left to the decoder, which refuses it: with
// one cut, it would take the other.
func cutManaged(b []byte, i int, edits *[]edit) error {
	major, pairs, next, err := head(b, i)
	if err != nil || major != majorMap {
		return err
	}
	var cut []edit
	for range pairs {
		isManaged, valueAt, err := text(b, next, "managedFields")
		if err != nil {
			return err
		}
		end, err := skip(b, valueAt)
		if err != nil {
			return err
		}
		if isManaged {
			if cut != nil {
				return errUnsupported
			}
			cut = []edit{{from: i, to: headEnd(b, i), with: mapHead(pairs - 1)}, {from: next, to: end}}
		}
		next = end
	}
	*edits = append(*edits, cut...)
	return nil
}

// headEnd returns where the head of the data item at b[i:] ends.
func headEnd(b []byte, i int) int {
	_, _, next, _ := head(b, i) // read before
	return next
}

// mapHead is the head of a map of n pairs, in the shortest form, as the
// API server writes it.
func mapHead(n uint64) []byte {
	const m = majorMap << 5
	switch {
	case n < 24:
		return []byte{m | byte(n)}
	case n <= 0xff:
		return []byte{m | 24, byte(n)}
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16([]byte{m | 25}, uint16(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32([]byte{m | 26}, uint32(n))
	}
	return binary.BigEndian.AppendUint64([]byte{m | 27}, n)
}
