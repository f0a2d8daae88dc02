package v1alpha1

import (
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestCRDNamesMatchTheScheme checks that the CRD serves the kind and
// resource the Go types are registered and requested as.
func TestCRDNamesMatchTheScheme(t *testing.T) {
	crd := CRD()
	str := func(path ...string) string {
		s, _, _ := unstructured.NestedString(crd.Object, path...)
		return s
	}
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gvks, _, err := s.ObjectKinds(&Widget{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) != 1 || versions[0].(map[string]any)["name"] != gvks[0].Version {
		t.Errorf("CRD versions %v, want one, %s", versions, gvks[0].Version)
	}
	for _, c := range []struct{ got, want string }{
		{str("metadata", "name"), Resource.Resource + "." + gvks[0].Group},
		{str("spec", "group"), gvks[0].Group},
		{str("spec", "names", "kind"), gvks[0].Kind},
		{str("spec", "names", "listKind"), reflect.TypeFor[WidgetList]().Name()},
		{str("spec", "names", "plural"), Resource.Resource},
		{str("spec", "scope"), "Namespaced"},
	} {
		if c.got != c.want {
			t.Errorf("CRD has %q, want %q", c.got, c.want)
		}
	}
}

// TestCRDSchemaKeepsEveryField checks that the structural schema declares
// every field of a fully set Widget, with its JSON type: the API server
// prunes undeclared fields, so a missing one would silently drop the data
// the controllers reconcile.
func TestCRDSchemaKeepsEveryField(t *testing.T) {
	w := &Widget{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"},
		Spec:       WidgetSpec{Data: map[string]string{"v": "0", "filler": "xx"}},
		Status:     WidgetStatus{ObservedGeneration: 3},
	}
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(CRD().Object, "spec", "versions")
	root, ok := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	if !ok {
		t.Fatal("CRD has no openAPIV3Schema")
	}
	checkSchema(t, "", doc, root)
}

// checkSchema fails t for every value under v that schema does not declare
// with the matching type. metadata is the API server's, not the schema's.
func checkSchema(t *testing.T, path string, v any, schema map[string]any) {
	t.Helper()
	typ, _ := schema["type"].(string)
	switch v := v.(type) {
	case map[string]any:
		if typ != "object" {
			t.Errorf("%s: an object, declared %q", path, typ)
			return
		}
		if path == ".metadata" {
			return
		}
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for k, sub := range v {
			s, ok := props[k].(map[string]any)
			if !ok {
				s = extra
			}
			if s == nil {
				t.Errorf("%s.%s is not in the schema: the API server would prune it", path, k)
				continue
			}
			checkSchema(t, path+"."+k, sub, s)
		}
	case string:
		if typ != "string" {
			t.Errorf("%s: a string, declared %q", path, typ)
		}
	case float64:
		if typ != "integer" && typ != "number" {
			t.Errorf("%s: a number, declared %q", path, typ)
		}
	default:
		t.Errorf("%s: unexpected %T", path, v)
	}
}
