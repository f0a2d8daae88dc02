package conversion_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

func v1beta1Widget(name, color string) string {
	return fmt.Sprintf(`{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget",`+
		`"metadata":{"name":%q,"namespace":"default"},"spec":{"replicas":1,"color":%q}}`, name, color)
}

// sameWidget is one Widget in each of its versions.
func sameWidget() map[string]runtime.Object {
	meta := metav1.ObjectMeta{Name: "w", Namespace: "default", UID: "uid-w", ResourceVersion: "42", Generation: 3,
		CreationTimestamp: metav1.Date(2026, 1, 2, 3, 4, 5, 0, metav1.Now().Location()).Rfc3339Copy(),
		Labels:            map[string]string{"app": "demo"}, Annotations: map[string]string{"note": "n"},
		Finalizers: []string{"steady.test/cleanup"}}
	replicas := int32(3)
	size := resource.MustParse("10Gi")
	ports := []widget.Port{{Name: "admin", Number: 9000}, {Name: "http", Number: 80}}
	return map[string]runtime.Object{
		"v1": &widget.V1{ObjectMeta: meta, Spec: widget.V1Spec{Replicas: &replicas, Colour: "red", Ports: ports, Size: size},
			Status: widget.V1Status{Ready: true}},
		"v1beta1": &widget.V1beta1{ObjectMeta: meta, Spec: widget.V1beta1Spec{Replicas: 3, Color: "red", Ports: ports, Size: size},
			Status: widget.V1beta1Status{Ready: true}},
		"v2alpha1": &widget.V2alpha1{ObjectMeta: meta, Spec: widget.V2alpha1Spec{Replicas: &replicas, Colour: "red",
			Ports: map[string]int32{"admin": 9000, "http": 80}, Size: size}, Status: widget.V1Status{Ready: true}},
	}
}

func widgetJSON(t *testing.T, version string) string {
	t.Helper()
	obj := sameWidget()[version]
	obj.GetObjectKind().SetGroupVersionKind(widget.GroupKind.WithVersion(version))
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every version to every other: hub to spoke, spoke to hub, and spoke to
// spoke through the hub, with metadata intact.
func TestConvertBetweenVersions(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	for _, from := range []string{"v1", "v1beta1", "v2alpha1"} {
		for _, to := range []string{"v1", "v1beta1", "v2alpha1"} {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				out := converted(t, h, "convert.steady.test/"+to, widgetJSON(t, from))
				want := sameWidget()[to]
				got := want.DeepCopyObject()
				zero(got)
				if err := json.Unmarshal(out[0], got); err != nil {
					t.Fatal(err)
				}
				if gvk := got.GetObjectKind().GroupVersionKind(); gvk != widget.GroupKind.WithVersion(to) {
					t.Errorf("converted object is a %v, want %s", gvk, to)
				}
				got.GetObjectKind().SetGroupVersionKind(want.GetObjectKind().GroupVersionKind())
				if !apiequality.Semantic.DeepEqual(got, want) {
					t.Errorf("converted\n%s\nwant\n%+v", out[0], want)
				}
			})
		}
	}
}

// zero empties obj, a pointer to a struct.
func zero(obj runtime.Object) {
	switch o := obj.(type) {
	case *widget.V1:
		*o = widget.V1{}
	case *widget.V1beta1:
		*o = widget.V1beta1{}
	case *widget.V2alpha1:
		*o = widget.V2alpha1{}
	}
}

// An object already in the desired version comes back byte for byte,
// fields its Go type lacks and spacing included; the others keep their
// places around it.
func TestConvertMixedList(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	same := `{ "apiVersion": "convert.steady.test/v1", "kind": "Widget", "metadata": {"name": "as-is"}, "spec": {"unknown": [1, 2]} }`
	v2 := `{"apiVersion":"convert.steady.test/v2alpha1","kind":"Widget","metadata":{"name":"third"},"spec":{"colour":"green"}}`
	out := converted(t, h, "convert.steady.test/v1",
		v1beta1Widget("first", "red"), same, v1beta1Widget("second", "blue"), v2, v1beta1Widget("last", "pink"))
	if string(out[1]) != same {
		t.Errorf("object in the desired version came back as\n%s\nwant\n%s", out[1], same)
	}
	for i, want := range map[int][2]string{0: {"first", "red"}, 2: {"second", "blue"}, 3: {"third", "green"}, 4: {"last", "pink"}} {
		if got := decode[widget.V1](t, out[i]); got.Name != want[0] || got.Spec.Colour != want[1] || got.APIVersion != "convert.steady.test/v1" {
			t.Errorf("object %d is %s, want %s in colour %s", i, out[i], want[0], want[1])
		}
	}
}

// The answer has the field names of apiextensions.k8s.io/v1.
func TestResponseFieldNames(t *testing.T) {
	rec := post(conversion.NewHandler(widget.Scheme()), review("uid-0", "convert.steady.test/v1"))
	want := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"uid-0",` +
		`"convertedObjects":[],"result":{"metadata":{},"status":"Success"}}}`
	if rec.Body.String() != want {
		t.Errorf("body\n%s\nwant\n%s", rec.Body, want)
	}
}

// Objects are read as the API server reads them: keys are case-sensitive.
func TestConvertCaseSensitive(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	out := converted(t, h, "convert.steady.test/v1",
		`{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget","metadata":{"name":"w"},"SPEC":{"Color":"red"}}`)
	if got := decode[widget.V1](t, out[0]); got.Spec.Colour != "" {
		t.Errorf("colour %q, want none: SPEC is not spec", got.Spec.Colour)
	}
	msg := failed(t, h, "convert.steady.test/v1", `{"APIVERSION":"convert.steady.test/v1beta1","kind":"Widget"}`)
	if !strings.Contains(msg, "no apiVersion") {
		t.Errorf("message %q, want it to say the object has no apiVersion", msg)
	}
}

// Metadata comes back as it went, apart from labels and annotations,
// whatever the conversion did to it.
func TestConvertKeepsMetadata(t *testing.T) {
	s := runtime.NewScheme()
	addGizmo(s)
	h := conversion.NewHandler(s)
	meta := `"metadata":{"name":"g","namespace":"ns","uid":"uid-g","generation":7,"resourceVersion":"5",` +
		`"labels":{"keep":"k","drop":"d"},"annotations":{"note":"n"},"finalizers":["f"]}`
	wantMeta := metav1.ObjectMeta{Name: "g", Namespace: "ns", UID: "uid-g", Generation: 7, ResourceVersion: "5",
		Labels: map[string]string{"keep": "k", "drop": "d"}, Annotations: map[string]string{"note": "n"}, Finalizers: []string{"f"}}

	// ConvertFrom renamed it, changed its UID and generation, dropped a
	// label and added an annotation: only the last two stay.
	out := converted(t, h, "gizmo.steady.test/v1beta1", `{"apiVersion":"gizmo.steady.test/v1","kind":"Gizmo",`+meta+`,"spec":"s"}`)
	got := decode[gizmoV1beta1](t, out[0])
	want := *wantMeta.DeepCopy()
	delete(want.Labels, "drop")
	want.Annotations["stash"] = "kept by the conversion"
	if !apiequality.Semantic.DeepEqual(got.ObjectMeta, want) || got.Spec != "s" {
		t.Errorf("v1 to v1beta1 gave %+v spec %q, want %+v", got.ObjectMeta, got.Spec, want)
	}

	// ConvertTo never copied it: all of it stays, labels and annotations too.
	out = converted(t, h, "gizmo.steady.test/v1", `{"apiVersion":"gizmo.steady.test/v1beta1","kind":"Gizmo",`+meta+`,"spec":"s"}`)
	gotHub := decode[gizmoV1](t, out[0])
	if !apiequality.Semantic.DeepEqual(gotHub.ObjectMeta, wantMeta) || gotHub.Spec != "s" {
		t.Errorf("v1beta1 to v1 gave %+v spec %q, want %+v", gotHub.ObjectMeta, gotHub.Spec, wantMeta)
	}
}

func TestLogging(t *testing.T) {
	var logs logBuffer
	h := conversion.NewHandler(widget.Scheme(), conversion.WithLogger(logs.logger()))
	converted(t, h, "convert.steady.test/v1", v1beta1Widget("a", "red"))
	if want := `"msg"="converted" "uid"="uid-1" "objects"=1 "desiredAPIVersion"="convert.steady.test/v1"`; !strings.Contains(logs.String(), want) {
		t.Errorf("log\n%s\nwant %s", logs.String(), want)
	}
	failed(t, h, "convert.steady.test/v1", v1beta1Widget("bad", widget.ColorInvalid))
	if want := `"msg"="conversion failed" "error"="Widget default/bad from`; !strings.Contains(logs.String(), want) {
		t.Errorf("log\n%s\nwant %s", logs.String(), want)
	}
}

func TestNilScheme(t *testing.T) {
	msg := failed(t, conversion.NewHandler(nil), "convert.steady.test/v1", v1beta1Widget("w", "red"))
	if !strings.Contains(msg, "not registered in the scheme") {
		t.Errorf("message %q, want the kind not registered", msg)
	}
}

// Reviews arrive concurrently; the first ones race to look up the hub.
func TestConcurrentReviews(t *testing.T) {
	h := conversion.NewHandler(widget.Scheme())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				name := fmt.Sprintf("w-%d-%d", g, i)
				rec := post(h, review(name, "convert.steady.test/v2alpha1", v1beta1Widget(name, "red")))
				var a answer
				if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil || a.Response == nil || a.Response.UID != name ||
					len(a.Response.ConvertedObjects) != 1 {
					t.Errorf("review %s: %s", name, rec.Body)
					return
				}
				if got := decode[widget.V2alpha1](t, a.Response.ConvertedObjects[0]); got.Name != name {
					t.Errorf("review %s converted %s", name, got.Name)
				}
			}
		})
	}
	wg.Wait()
}
