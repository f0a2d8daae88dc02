package object

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// isNil reports whether obj is nil: a nil interface, or one holding a nil
// pointer (or map, slice, ...) such as (*corev1.Pod)(nil), whose methods
// panic on the first field they read. It takes metav1.Object, which
// Object embeds, so that the finalizer helpers and Key can use it too.
func isNil(obj metav1.Object) bool {
	if obj == nil {
		return true
	}
	switch v := reflect.ValueOf(obj); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return v.IsNil()
	}
	return false
}

// checkNil returns function fn's error for a nil owner or obj, naming
// each one that is nil and its Go type, or nil when neither is.
func checkNil(fn string, owner, obj Object) error {
	var nils []string
	for _, arg := range [...]struct {
		name string
		obj  Object
	}{{"owner", owner}, {"object", obj}} {
		switch {
		case arg.obj == nil:
			nils = append(nils, "the "+arg.name+" is nil")
		case isNil(arg.obj):
			nils = append(nils, fmt.Sprintf("the %s is a nil %T", arg.name, arg.obj))
		}
	}
	if nils == nil {
		return nil
	}
	return fmt.Errorf("object: %s: %s", fn, strings.Join(nils, " and "))
}
