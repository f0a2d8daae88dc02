package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
)

func TestParseKind(t *testing.T) {
	for _, s := range []string{"configmap", "cr"} {
		if k, err := ParseKind(s); err != nil || string(k) != s {
			t.Errorf("ParseKind(%q) = %q, %v", s, k, err)
		}
	}
	if _, err := ParseKind("ConfigMap"); err == nil || !strings.Contains(err.Error(), `-kind "ConfigMap"`) {
		t.Errorf("ParseKind(ConfigMap) = %v, want an error naming the flag and value", err)
	}
}

// TestKinds runs the shared logic over an object of each kind, updated by
// the load generator's patch, as the parent and the children do.
func TestKinds(t *testing.T) {
	for _, k := range []Kind{KindConfigMap, KindCR} {
		t.Run(string(k), func(t *testing.T) {
			obj := k.NewObject("ns", "a", map[string]string{ValueKey: "0", "filler": "xx"})
			if _, ok := obj.(metav1.Object); !ok {
				t.Fatalf("%T is not a metav1.Object", obj)
			}
			if gvks, _, err := k.Scheme().ObjectKinds(obj); err != nil {
				t.Fatalf("%T is not in the kind's scheme: %v", obj, err)
			} else if list := k.NewList(); !k.Scheme().Recognizes(gvks[0].GroupVersion().WithKind(gvks[0].Kind + "List")) {
				t.Fatalf("%T's list %T is not in the kind's scheme", obj, list)
			}
			m := obj.(metav1.Object)
			if Desired("r1", m) != "r1/0" || Converged("r1", m) {
				t.Fatalf("a new object: Desired = %q, Converged = %v; want r1/0, false", Desired("r1", m), Converged("r1", m))
			}
			SetObserved(m, Desired("r1", m))
			if !Converged("r1", m) {
				t.Fatal("not converged after SetObserved")
			}

			// A JSON merge patch of maps only adds and replaces keys, as
			// json.Unmarshal into the existing object does.
			start := time.Now()
			if err := json.Unmarshal(k.LoadPatch(start.Add(time.Millisecond).UnixNano(), "load-7"), obj); err != nil {
				t.Fatal(err)
			}
			if d := Data(m); d[ValueKey] != "load-7" || d["filler"] != "xx" {
				t.Fatalf("after the load patch data = %v, want v=load-7 and the filler kept", d)
			}
			l := NewLogic("r1", start)
			if want, write := l.Observe(m); want != "r1/load-7" || !write {
				t.Fatalf("Observe after the load = %q, %v; want r1/load-7, true", want, write)
			}
			if c := l.Counts(); c.LatencySamples != 1 {
				t.Fatalf("latency samples = %d, want the load's stamp seen", c.LatencySamples)
			}
		})
	}
}

func TestDataOfOtherObjects(t *testing.T) {
	if d := Data(&metav1.ObjectMeta{}); d != nil {
		t.Errorf("Data(ObjectMeta) = %v, want nil", d)
	}
	w := &v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Data: map[string]string{ValueKey: "1"}}}
	if Data(w)[ValueKey] != "1" {
		t.Errorf("Data(Widget) = %v, want its spec.data", Data(w))
	}
}
