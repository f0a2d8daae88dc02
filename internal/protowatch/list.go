package protowatch

// List decodes a kind's lists. It is safe for concurrent use.
//
// It leaves managedFields in: cutting them from a list's bytes takes a
// copy of the whole list, while the reflector drops them right after.
type List struct{ name string }

// NewList returns the List decoder of the list kind named kind
// ("ConfigMapList").
func NewList(kind string) *List { return &List{name: kind} }

// Decode decodes body, a list answer of content type
// application/vnd.kubernetes.protobuf, into list, a new list of the kind:
// the list's own bytes in body, where client-go decodes a copy of them.
// It reports false, and leaves list alone, when body holds another kind
// (a Status): client-go's decoder knows what to make of that.
func (l *List) Decode(body []byte, list Object) (bool, error) {
	return Decode(body, l.name, list)
}
