package conversiontest

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
)

// difference describes the first place, in field order, where want and
// got, which are not semantically equal, differ: its Go path and the two
// values there.
func difference(want, got any) string {
	path, w, g := firstDiff("", reflect.ValueOf(want), reflect.ValueOf(got))
	if path == "" {
		path = "the object"
	}
	return fmt.Sprintf("%s: want %s, got %s", path, show(w), show(g))
}

// firstDiff descends from a and b, which differ, to the deepest value at
// which they still differ. It stops at types with a semantic equality of
// their own (resource.Quantity, metav1.Time) and at structs with
// unexported fields, whose parts it cannot compare.
func firstDiff(path string, a, b reflect.Value) (string, reflect.Value, reflect.Value) {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return path, a, b
	}
	if _, custom := equality.Semantic.Equalities[a.Type()]; custom {
		return path, a, b
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return path, a, b
		}
		return firstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		t := a.Type()
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				return path, a, b
			}
		}
		for i := range t.NumField() {
			if !equal(a.Field(i), b.Field(i)) {
				return firstDiff(join(path, t.Field(i).Name), a.Field(i), b.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return path, a, b
		}
		for i := range a.Len() {
			if !equal(a.Index(i), b.Index(i)) {
				return firstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		}
	case reflect.Map:
		keys := append(a.MapKeys(), b.MapKeys()...)
		slices.SortFunc(keys, func(x, y reflect.Value) int { return cmp.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
		for _, k := range keys {
			va, vb := a.MapIndex(k), b.MapIndex(k)
			if !va.IsValid() || !vb.IsValid() || !equal(va, vb) {
				return firstDiff(fmt.Sprintf("%s[%s]", path, show(k)), va, vb)
			}
		}
	}
	return path, a, b
}

func equal(a, b reflect.Value) bool { return semanticEqual(a.Interface(), b.Interface()) }

// semanticEqual is equality.Semantic.DeepEqual, or reflect.DeepEqual
// where the former panics: on values with unexported fields it has no
// function for, such as a time.Time.
func semanticEqual(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = reflect.DeepEqual(a, b)
		}
	}()
	return equality.Semantic.DeepEqual(a, b)
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// show prints a value for a report, briefly.
func show(v reflect.Value) string {
	var s string
	switch {
	case !v.IsValid():
		s = "(none)"
	case v.Kind() == reflect.Pointer && !v.IsNil():
		s = "&" + show(v.Elem())
	case v.Kind() == reflect.String:
		s = fmt.Sprintf("%q", v.String())
	case stringer(v) != nil:
		s = stringer(v).String()
	default:
		s = fmt.Sprintf("%+v", v.Interface())
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// stringer returns v as a fmt.Stringer, also when only a pointer to v's
// type is one (resource.Quantity), or nil.
func stringer(v reflect.Value) fmt.Stringer {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	if s, ok := p.Interface().(fmt.Stringer); ok {
		return s
	}
	return nil
}
