package fieldcodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"
)

// Codec encodes and decodes values of T, a pointer to a struct. It is
// safe for concurrent use.
type Codec[T any] struct {
	elem reflect.Type
	plan *plan
}

// plans holds the compiled plan of every top-level type For was asked
// for: compiling takes far longer than an encode.
var plans sync.Map // reflect.Type → *plan

// For returns the Codec of T, which must be a pointer to a struct whose
// fields all have a form (see the package documentation); the error names
// the first field that has none.
func For[T any]() (*Codec[T], error) {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("fieldcodec: %v: want a pointer to a struct", typ)
	}
	elem := typ.Elem()
	if p, ok := plans.Load(elem); ok {
		return &Codec[T]{elem: elem, plan: p.(*plan)}, nil
	}
	p, err := (&compiler{seen: map[reflect.Type]*plan{}}).compile(elem, elem.Name())
	if err != nil {
		return nil, fmt.Errorf("fieldcodec: %v: %w", typ, err)
	}
	plans.Store(elem, p)
	return &Codec[T]{elem: elem, plan: p}, nil
}

// scratch holds encoding buffers: an encoding is built in one and copied
// out at its exact size, which is what a cache keeps.
var scratch = sync.Pool{New: func() any { return new(encoder) }}

// Encode returns obj's encoding, a new slice of exactly its length. It
// only reads obj.
func (c *Codec[T]) Encode(obj T) ([]byte, error) {
	v := reflect.ValueOf(obj)
	if v.IsNil() {
		return nil, fmt.Errorf("fieldcodec: encoding a nil %v", v.Type())
	}
	e := scratch.Get().(*encoder)
	defer scratch.Put(e)
	e.b, e.err, e.depth = e.b[:0], nil, 0
	c.plan.enc(e, v.Elem())
	if e.err != nil {
		return nil, fmt.Errorf("fieldcodec: encoding %v: %w", v.Type(), e.err)
	}
	return bytes.Clone(e.b), nil
}

// Decode returns a new object decoded from b, an encoding of Encode. The
// object shares no memory with b.
func (c *Codec[T]) Decode(b []byte) (T, error) {
	ptr := reflect.New(c.elem)
	d := &decoder{b: b, s: string(b)}
	c.plan.dec(d, ptr.Elem())
	if d.err == nil && d.off != len(b) {
		d.err = fmt.Errorf("%d bytes left over", len(b)-d.off)
	}
	obj := ptr.Interface().(T)
	if d.err != nil {
		return obj, fmt.Errorf("fieldcodec: decoding %v: %w", ptr.Type(), d.err)
	}
	return obj, nil
}

// plan encodes and decodes the values of one type. dec decodes into v,
// which is settable and holds its type's zero value.
type plan struct {
	enc func(e *encoder, v reflect.Value)
	dec func(d *decoder, v reflect.Value)
}

type encoder struct {
	b     []byte
	err   error
	depth int // of the recursive types' values being encoded
}

func (e *encoder) uvarint(x uint64) { e.b = binary.AppendUvarint(e.b, x) }

func (e *encoder) varint(x int64) { e.b = binary.AppendVarint(e.b, x) }

func (e *encoder) string(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// count encodes the length of v, a slice or map, telling nil (0) from
// empty (1), and reports whether elements follow.
func (e *encoder) count(v reflect.Value) bool {
	if v.IsNil() {
		e.uvarint(0)
		return false
	}
	e.uvarint(uint64(v.Len()) + 1)
	return true
}

// bytes encodes b, telling nil from empty.
func (e *encoder) bytes(b []byte) {
	if b == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(b)) + 1)
	e.b = append(e.b, b...)
}

// decoder reads an encoding. Its first error stops it: every later read
// returns a zero value, and so ends every loop.
type decoder struct {
	b     []byte
	s     string // b, once, which decoded strings are cut from
	off   int
	err   error
	depth int
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.off, fmt.Sprintf(format, args...))
	}
	d.off = len(d.b)
}

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.off += n
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.off += n
	return x
}

func (d *decoder) byte() byte {
	if d.off >= len(d.b) {
		d.fail("truncated")
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

// length reads a length of bytes or elements that follow (each of which
// takes a byte at least).
func (d *decoder) length(x uint64) int {
	if x > uint64(len(d.b)-d.off) {
		d.fail("length %d past the end", x)
		return 0
	}
	return int(x)
}

// count reads the element count of a slice or map, or that it is nil.
func (d *decoder) count() (n int, isNil bool) {
	x := d.uvarint()
	if x == 0 {
		return 0, true
	}
	return d.length(x - 1), d.err != nil
}

func (d *decoder) string() string {
	n := d.length(d.uvarint())
	s := d.s[d.off : d.off+n]
	d.off += n
	return s
}

// bytes decodes a byte slice of its own, nil or not as encoded.
func (d *decoder) bytes() []byte {
	if b := d.view(); b != nil {
		return append(make([]byte, 0, len(b)), b...)
	}
	return nil
}

// view decodes a byte slice as a slice of the bytes decoded: not to be
// kept.
func (d *decoder) view() []byte {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	d.off += n
	return d.b[d.off-n : d.off : d.off]
}
