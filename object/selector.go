package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Selector narrows a list or watch to the objects whose labels and fields
// match, as the API server's labelSelector and fieldSelector parameters
// do. The zero Selector selects everything. It is the one selector type of
// steady: reflectors, informers, clients and the manager all take it.
type Selector struct {
	Labels string // a label selector, e.g. "app=web,tier!=db"
	Fields string // a field selector, e.g. "spec.nodeName=node-1"
}

// Validate reports a selector the API server would refuse, naming it.
func (s Selector) Validate() error {
	_, _, err := s.Parse()
	return err
}

// Parse returns the parsed label and field selectors.
func (s Selector) Parse() (labels.Selector, fields.Selector, error) {
	l, err := labels.Parse(s.Labels)
	if err != nil {
		return nil, nil, fmt.Errorf("label selector %q: %w", s.Labels, err)
	}
	f, err := fields.ParseSelector(s.Fields)
	if err != nil {
		return nil, nil, fmt.Errorf("field selector %q: %w", s.Fields, err)
	}
	return l, f, nil
}

// IsZero reports whether s selects everything.
func (s Selector) IsZero() bool { return s == Selector{} }
