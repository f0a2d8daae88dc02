package fieldcodec

import (
	"cmp"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"
)

// compiler builds the plans of a type and of the types it holds.
type compiler struct {
	// seen holds the plans being built, so that a recursive type's plan
	// refers to itself: its functions are filled in before any runs.
	seen map[reflect.Type]*plan
}

var customMarshalers = []reflect.Type{
	reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
	reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
}

// compile returns t's plan; path names the value for errors.
func (c *compiler) compile(t reflect.Type, path string) (*plan, error) {
	if p := c.seen[t]; p != nil {
		if p.enc == nil { // t holds itself: its values may nest deep, or in a cycle
			return nested(p), nil
		}
		return p, nil
	}
	if p := apimachineryPlan(t); p != nil {
		return p, nil
	}
	if t.Kind() != reflect.Pointer && !plainStructs[t] {
		for _, m := range customMarshalers {
			if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
				return nil, fmt.Errorf("%s: %v has its own JSON or text encoding", path, t)
			}
		}
	}
	p := &plan{}
	c.seen[t] = p
	var err error
	switch t.Kind() {
	case reflect.Bool:
		p.enc = func(e *encoder, v reflect.Value) {
			if v.Bool() {
				e.b = append(e.b, 1)
			} else {
				e.b = append(e.b, 0)
			}
		}
		p.dec = func(d *decoder, v reflect.Value) {
			switch d.byte() {
			case 0:
			case 1:
				v.SetBool(true)
			default:
				d.fail("bad bool")
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.enc = func(e *encoder, v reflect.Value) { e.varint(v.Int()) }
		p.dec = func(d *decoder, v reflect.Value) {
			if x := d.varint(); v.OverflowInt(x) {
				d.fail("%d overflows %v", x, v.Type())
			} else {
				v.SetInt(x)
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.enc = func(e *encoder, v reflect.Value) { e.uvarint(v.Uint()) }
		p.dec = func(d *decoder, v reflect.Value) {
			if x := d.uvarint(); v.OverflowUint(x) {
				d.fail("%d overflows %v", x, v.Type())
			} else {
				v.SetUint(x)
			}
		}
	case reflect.Float32, reflect.Float64:
		// Byte-reversed, the zero low bits of a round number's mantissa
		// lead, and the varint is short: 1 byte for 0, 2 for 0.5.
		p.enc = func(e *encoder, v reflect.Value) { e.uvarint(bits.ReverseBytes64(math.Float64bits(v.Float()))) }
		p.dec = func(d *decoder, v reflect.Value) { v.SetFloat(math.Float64frombits(bits.ReverseBytes64(d.uvarint()))) }
	case reflect.String:
		p.enc = func(e *encoder, v reflect.Value) { e.string(v.String()) }
		p.dec = func(d *decoder, v reflect.Value) { v.SetString(d.string()) }
	case reflect.Pointer:
		err = c.pointer(p, t, path)
	case reflect.Slice:
		err = c.slice(p, t, path)
	case reflect.Array:
		err = c.array(p, t, path)
	case reflect.Map:
		err = c.mapPlan(p, t, path)
	case reflect.Struct:
		err = c.structPlan(p, t, path)
	default:
		err = fmt.Errorf("%s: a %v has no fixed form", path, t)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// maxDepth is how deep the values of a recursive type may nest, far
// beyond real objects': a cycle (which JSON refuses too) is an error, not
// a stack overflow.
const maxDepth = 10_000

// nested guards the depth of p, the plan of a recursive type, where a
// value holds another of its type.
func nested(p *plan) *plan {
	return &plan{
		enc: func(e *encoder, v reflect.Value) {
			if e.depth++; e.depth > maxDepth {
				if e.err == nil {
					e.err = fmt.Errorf("values of %v nested more than %d deep: a cycle?", v.Type(), maxDepth)
				}
			} else {
				p.enc(e, v)
			}
			e.depth--
		},
		dec: func(d *decoder, v reflect.Value) {
			if d.depth++; d.depth > maxDepth {
				d.fail("values of %v nested more than %d deep", v.Type(), maxDepth)
			} else {
				p.dec(d, v)
			}
			d.depth--
		},
	}
}

func (c *compiler) pointer(p *plan, t reflect.Type, path string) error {
	elem, err := c.compile(t.Elem(), path)
	if err != nil {
		return err
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.b = append(e.b, 0)
			return
		}
		e.b = append(e.b, 1)
		elem.enc(e, v.Elem())
	}
	p.dec = func(d *decoder, v reflect.Value) {
		switch d.byte() {
		case 0:
		case 1:
			ptr := reflect.New(t.Elem())
			elem.dec(d, ptr.Elem())
			v.Set(ptr)
		default:
			d.fail("bad pointer")
		}
	}
	return nil
}

func (c *compiler) slice(p *plan, t reflect.Type, path string) error {
	if t.Elem().Kind() == reflect.Uint8 {
		p.enc = func(e *encoder, v reflect.Value) { e.bytes(v.Bytes()) }
		p.dec = func(d *decoder, v reflect.Value) {
			if b := d.bytes(); b != nil {
				v.SetBytes(b)
			}
		}
		return nil
	}
	elem, err := c.compile(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if e.count(v) {
			for i := range v.Len() {
				elem.enc(e, v.Index(i))
			}
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		n, isNil := d.count()
		if isNil {
			return
		}
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			elem.dec(d, s.Index(i))
		}
		v.Set(s)
	}
	return nil
}

func (c *compiler) array(p *plan, t reflect.Type, path string) error {
	elem, err := c.compile(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	p.enc = func(e *encoder, v reflect.Value) {
		for i := range v.Len() {
			elem.enc(e, v.Index(i))
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		for i := range v.Len() {
			elem.dec(d, v.Index(i))
		}
	}
	return nil
}

var stringMap = reflect.TypeFor[map[string]string]()

func (c *compiler) mapPlan(p *plan, t reflect.Type, path string) error {
	if t.Key() == stringMap.Key() && t.Elem() == stringMap.Elem() {
		stringMapPlan(p, t)
		return nil
	}
	var less func(a, b reflect.Value) int
	switch t.Key().Kind() {
	case reflect.String:
		less = func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		less = func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		less = func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) }
	default:
		return fmt.Errorf("%s: a map keyed by %v has no JSON form", path, t.Key())
	}
	key, err := c.compile(t.Key(), path+"[key]")
	if err != nil {
		return err
	}
	elem, err := c.compile(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if !e.count(v) {
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, less) // equal maps encode to equal bytes
		for _, k := range keys {
			key.enc(e, k)
			elem.enc(e, v.MapIndex(k))
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		n, isNil := d.count()
		if isNil {
			return
		}
		m := reflect.MakeMapWithSize(t, n)
		k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		for range n {
			k.SetZero()
			key.dec(d, k)
			x.SetZero()
			elem.dec(d, x)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	}
	return nil
}

// stringMapPlan is the plan of maps of strings to strings (labels,
// annotations, data), without reflection per entry.
func stringMapPlan(p *plan, t reflect.Type) {
	p.enc = func(e *encoder, v reflect.Value) {
		if !e.count(v) {
			return
		}
		m := v.Convert(stringMap).Interface().(map[string]string)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys) // equal maps encode to equal bytes
		for _, k := range keys {
			e.string(k)
			e.string(m[k])
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		n, isNil := d.count()
		if isNil {
			return
		}
		m := make(map[string]string, n)
		for range n {
			k := d.string()
			m[k] = d.string()
		}
		if t == stringMap {
			v.Set(reflect.ValueOf(m))
		} else {
			v.Set(reflect.ValueOf(m).Convert(t))
		}
	}
}

type field struct {
	index int
	plan  *plan
}

// structPlan encodes the fields encoding/json would, in order. A struct
// with none takes a byte, so that every value takes one at least (which
// bounds the counts a decoder believes).
func (c *compiler) structPlan(p *plan, t reflect.Type, path string) error {
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" || (!f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct)) {
			continue
		}
		fp, err := c.compile(f.Type, path+"."+f.Name)
		if err != nil {
			return err
		}
		fields = append(fields, field{i, fp})
	}
	if len(fields) == 0 {
		p.enc = func(e *encoder, v reflect.Value) { e.b = append(e.b, 0) }
		p.dec = func(d *decoder, v reflect.Value) {
			if d.byte() != 0 {
				d.fail("bad empty struct")
			}
		}
		return nil
	}
	p.enc = func(e *encoder, v reflect.Value) {
		for _, f := range fields {
			f.plan.enc(e, v.Field(f.index))
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		for _, f := range fields {
			f.plan.dec(d, v.Field(f.index))
		}
	}
	return nil
}
