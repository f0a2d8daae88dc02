package protowatch

import (
	"encoding/binary"
	"fmt"
	"reflect"
)

// List decodes a kind's lists. It is safe for concurrent use.
type List struct {
	name        string
	dropManaged bool
}

// NewList returns the List decoder of the list kind named kind
// ("ConfigMapList") whose Go type is that of list. With dropManagedFields
// its items come out without metadata.managedFields; the option is
// ignored for a Go type whose items are not at protobuf field 2 or do not
// have their ObjectMeta at field 1, as every built-in list kind has.
func NewList(kind string, list Object, dropManagedFields bool) *List {
	return &List{name: kind, dropManaged: dropManagedFields && itemsSecond(reflect.TypeOf(list))}
}

// Decode decodes body, a list answer of content type
// application/vnd.kubernetes.protobuf, into list, a new list of the kind.
// It reports false, and leaves list alone, when body holds another kind
// (a Status): client-go's decoder knows what to make of that.
func (l *List) Decode(body []byte, list Object) (bool, error) {
	kind, raw, err := unwrap(body)
	if err != nil {
		return false, fmt.Errorf("protowatch: %s: %w", l.name, err)
	}
	if string(kind) != l.name {
		return false, nil
	}
	if l.dropManaged {
		if raw, err = stripItems(raw); err != nil {
			return false, fmt.Errorf("protowatch: %s: %w", l.name, err)
		}
	}
	if err := list.Unmarshal(raw); err != nil {
		return false, fmt.Errorf("protowatch: %s: %w", l.name, err)
	}
	return true, nil
}

// stripItems returns the list without its items' managedFields, in a new
// slice, or list itself if no item has any.
func stripItems(list []byte) ([]byte, error) {
	size, strip := 0, false
	for b := list; len(b) > 0; {
		f, err := next(b)
		if err != nil {
			return nil, err
		}
		b = b[f.size:]
		if f.num != itemsField || f.wire != wireBytes {
			size += f.size
			continue
		}
		has, err := hasManagedFields(f.val)
		if err != nil {
			return nil, err
		}
		n := strippedSize(f.val)
		size += f.tag + uvarintLen(n) + n
		strip = strip || has
	}
	if !strip {
		return list, nil
	}
	out := make([]byte, 0, size)
	for b := list; len(b) > 0; {
		f, _ := next(b)
		if f.num == itemsField && f.wire == wireBytes {
			out = append(out, b[:f.tag]...)
			out = binary.AppendUvarint(out, uint64(strippedSize(f.val)))
			out = appendStripped(out, f.val)
		} else {
			out = append(out, b[:f.size]...)
		}
		b = b[f.size:]
	}
	return out, nil
}
