package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// operation is one operation of a JSON patch (RFC 6902): "add", "remove"
// or "replace" of the value at path, a JSON pointer (RFC 6901).
type operation struct {
	op    string
	path  string
	value any // for add and replace
}

var errTrailing = errors.New("invalid character after top-level value")

// decodeJSON decodes a JSON document into maps, slices and scalars,
// keeping numbers as json.Number: exact, whatever their size.
func decodeJSON(doc []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return v, nil
}

// differ computes the operations that turn one decoded document into
// another. With a base, an operation is kept only where base and the
// target differ (see NewDefaulter): the differences of the source from
// base are the typed round trip's, not the defaulter's.
type differ struct {
	ops      []operation
	withBase bool
}

// diff returns the operations that turn from into to.
func diff(from, to any) []operation {
	d := differ{}
	d.walk("", from, to, nil, false)
	return d.ops
}

// walk compares from and to at path, where base is at (present or not).
// Objects are compared key by key and arrays of the same length element
// by element; any other difference replaces the value at path.
func (d *differ) walk(path string, from, to, base any, inBase bool) {
	switch f := from.(type) {
	case map[string]any:
		if t, ok := to.(map[string]any); ok {
			d.object(path, f, t, base)
			return
		}
	case []any:
		if t, ok := to.([]any); ok && len(f) == len(t) {
			b, _ := base.([]any)
			for i := range f {
				d.walk(path+"/"+strconv.Itoa(i), f[i], t[i], at(b, i), i < len(b))
			}
			return
		}
	}
	if !equal(from, to) {
		d.emit(operation{op: "replace", path: path, value: to}, base, inBase, true)
	}
}

func (d *differ) object(path string, from, to map[string]any, base any) {
	b, _ := base.(map[string]any)
	for _, k := range sortedKeys(from) { // sorted: the same patch every time
		p := path + "/" + escape(k)
		bv, inBase := b[k]
		if tv, ok := to[k]; ok {
			d.walk(p, from[k], tv, bv, inBase)
		} else {
			d.emit(operation{op: "remove", path: p}, bv, inBase, false)
		}
	}
	for _, k := range sortedKeys(to) {
		if _, ok := from[k]; !ok {
			bv, inBase := b[k]
			d.emit(operation{op: "add", path: path + "/" + escape(k), value: to[k]}, bv, inBase, true)
		}
	}
}

// emit records op unless a base says the target is the same there:
// present in both with equal values, or absent from both.
func (d *differ) emit(op operation, base any, inBase, inTarget bool) {
	if d.withBase && inBase == inTarget && (!inBase || equal(base, op.value)) {
		return
	}
	d.ops = append(d.ops, op)
}

func at(s []any, i int) any {
	if i < len(s) {
		return s[i]
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape escapes a key for a JSON pointer: "~" as "~0", "/" as "~1".
func escape(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// equal compares two decoded documents. Numbers are equal when they are
// written alike, which errs on the side of a superfluous replace.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			if bv, ok := b[k]; !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equal)
	case nil:
		return b == nil
	case string, json.Number, bool:
		return a == b
	}
	return false
}

// encodePatch writes ops as a JSON patch document.
func encodePatch(ops []operation) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" in a value stays "<"
	buf.WriteByte('[')
	for i, op := range ops {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"op":"` + op.op + `","path":`)
		if err := enc.Encode(op.path); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		if op.op != "remove" {
			buf.WriteString(`,"value":`)
			if err := enc.Encode(op.value); err != nil {
				return nil, err
			}
			buf.Truncate(buf.Len() - 1)
		}
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}
