package cborwire

import (
	"bytes"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// mapHead writes a map's head as the CBOR encoder does, in each size.
func TestMapHead(t *testing.T) {
	for _, n := range []int{0, 1, 23, 24, 255, 256, 65535, 65536} {
		m := make(map[int]bool, n)
		for i := range n {
			m[i] = true
		}
		enc, err := cbor.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		head := mapHead(uint64(n))
		if !bytes.HasPrefix(enc, head) {
			t.Fatalf("%d pairs: head %x, the encoder writes %x", n, head, enc[:min(len(enc), 9)])
		}
		if next := headEnd(enc, 0); next != len(head) {
			t.Fatalf("%d pairs: head read as %d bytes, written as %d", n, next, len(head))
		}
		if end, err := skip(enc, 0); err != nil || end != len(enc) {
			t.Fatalf("%d pairs: skipped to %d (%v), want %d", n, end, err, len(enc))
		}
	}
}

// skip refuses what the API server never sends: indefinite lengths,
// counts beyond the bytes, nesting beyond apimachinery's bound.
func TestSkipRefusesMalformed(t *testing.T) {
	deep := bytes.Repeat([]byte{0x81}, maxDepth+2) // arrays of one item, nested
	deep = append(deep, 0x00)
	for name, b := range map[string][]byte{
		"indefinite map": {0xbf, 0x01, 0x02, 0xff},
		"count too big":  {0xbb, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x01},
		"string too big": {0x5a, 0, 0, 1, 0, 'a'},
		"truncated head": {0x59, 0x01},
		"too deep":       deep,
	} {
		if end, err := skip(b, 0); err == nil {
			t.Errorf("%s: skipped to %d, want an error", name, end)
		}
	}
	ok := append(bytes.Repeat([]byte{0x81}, maxDepth), 0x00)
	if end, err := skip(ok, 0); err != nil || end != len(ok) {
		t.Errorf("nesting of %d: %d, %v", maxDepth, end, err)
	}
}

// The cut follows tags around an object up to the bound skip follows:
// a body of tags within tags is left to the decoder, not followed one
// stack frame a byte.
func TestCutRefusesDeepTags(t *testing.T) {
	obj := []byte{0xa1, 0x48, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', 0xa1, 0x4d}
	obj = append(append(obj, "managedFields"...), 0x80)
	if cut, ok := withoutManaged(append([]byte{0xd9, 0xd9, 0xf7}, obj...)); !ok || !bytes.Equal(cut[3:], []byte{0xa1, 0x48, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', 0xa0}) {
		t.Fatalf("the tagged object cut to %x, %v", cut, ok)
	}
	deep := append(bytes.Repeat([]byte{0xc0}, 1<<20), obj...)
	if cut, ok := withoutManaged(deep); ok {
		t.Fatalf("cut %d bytes of tags within tags to %d", len(deep), len(cut))
	}
}
