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
