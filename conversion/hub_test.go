package conversion_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

func TestCheckKind(t *testing.T) {
	s := widget.Scheme()
	addBroken(s)
	addGizmo(s)
	broken := func(kind string) schema.GroupKind { return schema.GroupKind{Group: brokenGroup, Kind: kind} }
	tests := []struct {
		name   string
		scheme *runtime.Scheme
		gk     schema.GroupKind
		want   []string // substrings of the error; none for no error
	}{
		{"widget", s, widget.GroupKind, nil},
		{"gizmo", s, schema.GroupKind{Group: "gizmo.steady.test", Kind: "Gizmo"}, nil},
		{"a hub alone", s, broken("Lone"), nil},
		{"no hub", s, broken("Orphan"), []string{"Orphan.broken.steady.test", "no hub", "(v2, v1)"}},
		{"two hubs", s, broken("Twin"), []string{"Twin.broken.steady.test", "2 hubs", "(v2, v1)"}},
		{"neither", s, broken("Odd"), []string{"Odd.broken.steady.test", "version v2", "neither a Hub nor Convertible",
			"conversion_test.neither"}},
		{"unregistered", s, broken("Nothing"), []string{"Nothing.broken.steady.test", "not registered"}},
		{"nil scheme", nil, widget.GroupKind, []string{"nil scheme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := conversion.CheckKind(tt.scheme, tt.gk)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckKind(%s) = %v, want nil", tt.gk, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckKind(%s) = nil, want an error", tt.gk)
			}
			for _, w := range append(tt.want, "conversion: ") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckKind(%s) = %q, want it to contain %q", tt.gk, err, w)
				}
			}
		})
	}
}

// Versions are listed most stable first, whatever the map order.
func TestCheckKindVersionOrder(t *testing.T) {
	s := runtime.NewScheme()
	for _, v := range []string{"v2alpha1", "v1", "v1beta1", "v3"} {
		s.AddKnownTypeWithName(brokenGVK(v, "Orphan"), &spoke[orphanV1, loneV1]{})
	}
	for range 5 {
		err := conversion.CheckKind(s, schema.GroupKind{Group: brokenGroup, Kind: "Orphan"})
		if err == nil || !strings.Contains(err.Error(), "(v3, v1, v1beta1, v2alpha1)") {
			t.Fatalf("CheckKind = %v, want the versions as v3, v1, v1beta1, v2alpha1", err)
		}
	}
}
