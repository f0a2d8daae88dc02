package object_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/object"
)

// nilCalls calls every exported function of package object that takes an
// object; owner is ignored by those that take none. TestNilCoversEveryFunction
// keeps the list complete.
var nilCalls = map[string]struct {
	takesOwner bool
	zero       any // the result for a nil object, for the functions without an error
	call       func(owner, obj object.Object) (any, error)
}{
	"SetControllerReference": {true, nil, func(owner, obj object.Object) (any, error) {
		return nil, object.SetControllerReference(owner, obj, scheme)
	}},
	"SetOwnerReference": {true, nil, func(owner, obj object.Object) (any, error) {
		return nil, object.SetOwnerReference(owner, obj, scheme)
	}},
	"RemoveOwnerReference": {true, nil, func(owner, obj object.Object) (any, error) {
		return object.RemoveOwnerReference(owner, obj, scheme)
	}},
	"RemoveControllerReference": {true, nil, func(owner, obj object.Object) (any, error) {
		return nil, object.RemoveControllerReference(owner, obj, scheme)
	}},
	"HasOwnerReference": {true, nil, func(owner, obj object.Object) (any, error) {
		return object.HasOwnerReference(owner, obj, scheme)
	}},
	"HasControllerReference": {false, false, func(_, obj object.Object) (any, error) { return object.HasControllerReference(obj), nil }},
	"AddFinalizer":           {false, false, func(_, obj object.Object) (any, error) { return object.AddFinalizer(obj, "example.com/f"), nil }},
	"RemoveFinalizer":        {false, false, func(_, obj object.Object) (any, error) { return object.RemoveFinalizer(obj, "example.com/f"), nil }},
	"HasFinalizer":           {false, false, func(_, obj object.Object) (any, error) { return object.HasFinalizer(obj, "example.com/f"), nil }},
	"Key":                    {false, "", func(_, obj object.Object) (any, error) { return object.Key(obj), nil }},
}

// No function panics on a nil owner or object, a nil interface or a typed
// nil: those with an error return one naming the argument and its type,
// the others return their documented zero result.
func TestNilArguments(t *testing.T) {
	owner := func() object.Object { return &appsv1.Deployment{ObjectMeta: meta("shop", "web", "uid-1")} }
	obj := func() object.Object { return configMap("shop", "web-config", "") }
	for _, args := range []struct {
		name       string
		owner, obj object.Object
		objNil     bool
		want       string // the error after "object: fn: "
	}{
		{"nil owner", nil, obj(), false, "the owner is nil"},
		{"typed nil owner", (*appsv1.Deployment)(nil), obj(), false, "the owner is a nil *v1.Deployment"},
		{"nil object", owner(), nil, true, "the object is nil"},
		{"typed nil object", owner(), (*corev1.ConfigMap)(nil), true, "the object is a nil *v1.ConfigMap"},
		{"both nil", nil, (*corev1.ConfigMap)(nil), true, "the owner is nil and the object is a nil *v1.ConfigMap"},
	} {
		for fn, c := range nilCalls {
			if !c.takesOwner && !args.objNil {
				continue // only the owner is nil, which fn does not take
			}
			got, panicked, err := callRecovering(c.call, args.owner, args.obj)
			switch {
			case panicked != nil:
				t.Errorf("%s(%s) panicked: %v", fn, args.name, panicked)
			case !c.takesOwner && (err != nil || got != c.zero):
				t.Errorf("%s(%s) = %#v, %v; want %#v", fn, args.name, got, err, c.zero)
			case c.takesOwner && (err == nil || err.Error() != "object: "+fn+": "+args.want):
				t.Errorf("%s(%s): error %v, want %q", fn, args.name, err, "object: "+fn+": "+args.want)
			case c.takesOwner && got != nil && got != false:
				t.Errorf("%s(%s) = %v with its error, want false", fn, args.name, got)
			}
		}
	}
}

// callRecovering returns call's results, or what it panicked with.
func callRecovering(call func(owner, obj object.Object) (any, error), owner, obj object.Object) (got, panicked any, err error) {
	defer func() { panicked = recover() }()
	got, err = call(owner, obj)
	return got, nil, err
}

// Every exported function that takes an object (Object or metav1.Object)
// is in nilCalls.
func TestNilCoversEveryFunction(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() || !mentions(fd.Type.Params, "Object") {
				continue
			}
			if _, ok := nilCalls[fd.Name.Name]; !ok {
				t.Errorf("%s: %s takes an object and is not in nilCalls", fset.Position(fd.Pos()), fd.Name.Name)
			}
		}
	}
}

// mentions reports whether an identifier named name appears in n.
func mentions(n ast.Node, name string) (found bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
