package conversiontest

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type diffPort struct {
	Name   string
	Number int32
}

type diffSpec struct {
	Replicas *int32
	Ports    []diffPort
	Labels   map[string]string
	Size     resource.Quantity
	Since    metav1.Time
	At       time.Time
	Any      any
}

type diffObject struct {
	metav1.ObjectMeta
	Spec diffSpec
}

func TestDifference(t *testing.T) {
	three, four := int32(3), int32(4)
	base := func() *diffObject {
		return &diffObject{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"a": "1", "b": "2"}},
			Spec: diffSpec{Replicas: &three, Ports: []diffPort{{"http", 80}, {"admin", 9000}},
				Labels: map[string]string{"x": "y"}, Size: resource.MustParse("1Gi"),
				Since: metav1.Unix(100, 0), At: time.Unix(200, 0), Any: 5},
		}
	}
	tests := []struct {
		name   string
		change func(o *diffObject)
		want   string
	}{
		{"nested field", func(o *diffObject) { o.Spec.Ports[1].Number = 9001 }, "Spec.Ports[1].Number: want 9000, got 9001"},
		{"string", func(o *diffObject) { o.Spec.Ports[0].Name = "" }, `Spec.Ports[0].Name: want "http", got ""`},
		{"slice length", func(o *diffObject) { o.Spec.Ports = o.Spec.Ports[:1] },
			"Spec.Ports: want [{Name:http Number:80} {Name:admin Number:9000}], got [{Name:http Number:80}]"},
		{"map key missing", func(o *diffObject) { delete(o.Labels, "b") }, `ObjectMeta.Labels["b"]: want "2", got (none)`},
		{"map key added", func(o *diffObject) { o.Spec.Labels["w"] = "v" }, `Spec.Labels["w"]: want (none), got "v"`},
		{"nil pointer", func(o *diffObject) { o.Spec.Replicas = nil }, "Spec.Replicas: want &3, got <nil>"},
		{"pointee", func(o *diffObject) { o.Spec.Replicas = &four }, "Spec.Replicas: want 3, got 4"},
		{"quantity", func(o *diffObject) { o.Spec.Size = resource.MustParse("2Gi") }, "Spec.Size: want 1Gi, got 2Gi"},
		{"metav1.Time", func(o *diffObject) { o.Spec.Since = metav1.Unix(101, 0) }, "Spec.Since: want " + metav1.Unix(100, 0).String()},
		{"time.Time", func(o *diffObject) { o.Spec.At = time.Unix(201, 0) }, "Spec.At: want " + time.Unix(200, 0).String()},
		{"interface of another type", func(o *diffObject) { o.Spec.Any = "5" }, `Spec.Any: want 5, got "5"`},
		{"interface", func(o *diffObject) { o.Spec.Any = 6 }, `Spec.Any: want 5, got 6`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := base(), base()
			tt.change(got)
			if d := difference(want, got); len(d) < len(tt.want) || d[:len(tt.want)] != tt.want {
				t.Errorf("difference = %q, want it to start %q", d, tt.want)
			}
		})
	}
}

// Nil and empty are the same to equality.Semantic, so not a difference
// to pick; a long value is cut short.
func TestDifferenceSemantic(t *testing.T) {
	want := &diffObject{Spec: diffSpec{Labels: map[string]string{}, Ports: []diffPort{}}, ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	got := &diffObject{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	if d := difference(want, got); d != `ObjectMeta.Name: want "a", got "b"` {
		t.Errorf("difference = %q", d)
	}
	long := make([]diffPort, 100)
	if d := difference(&diffSpec{Ports: long}, &diffSpec{}); len([]rune(d)) > 450 {
		t.Errorf("difference is %d long: %q", len(d), d)
	}
}

// Values with fields Semantic cannot compare are compared with
// reflect.DeepEqual instead of panicking.
func TestSemanticEqualUnexported(t *testing.T) {
	a, b := &diffSpec{At: time.Unix(1, 0)}, &diffSpec{At: time.Unix(1, 0)}
	if !semanticEqual(a, b) {
		t.Error("equal times compared unequal")
	}
	b.At = time.Unix(2, 0)
	if semanticEqual(a, b) {
		t.Error("different times compared equal")
	}
}
