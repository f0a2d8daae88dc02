package predicate

import (
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/object"
)

type mod func(*corev1.ConfigMap)

func obj(mods ...mod) *corev1.ConfigMap {
	c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "a", UID: "uid-1", Generation: 1, ResourceVersion: "10",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "x"},
	}}
	for _, m := range mods {
		m(c)
	}
	return c
}

var (
	gen2      mod = func(c *corev1.ConfigMap) { c.Generation = 2 }
	rv11      mod = func(c *corev1.ConfigMap) { c.ResourceVersion = "11" }
	newUID    mod = func(c *corev1.ConfigMap) { c.UID = types.UID("uid-2") }
	relabel   mod = func(c *corev1.ConfigMap) { c.Labels = map[string]string{"app": "db"} }
	reannot   mod = func(c *corev1.ConfigMap) { c.Annotations = nil }
	deleting  mod = func(c *corev1.ConfigMap) { now := metav1.Now(); c.DeletionTimestamp = &now }
	noGen     mod = func(c *corev1.ConfigMap) { c.Generation = 0 }
	statusish mod = func(c *corev1.ConfigMap) { c.ResourceVersion = "12"; c.Data = map[string]string{"s": "t"} }
)

func TestChangePredicatesOnUpdate(t *testing.T) {
	type P = Predicate[*corev1.ConfigMap]
	preds := map[string]P{
		"GenerationChanged":      GenerationChanged[*corev1.ConfigMap](),
		"ResourceVersionChanged": ResourceVersionChanged[*corev1.ConfigMap](),
		"LabelsChanged":          LabelsChanged[*corev1.ConfigMap](),
		"AnnotationsChanged":     AnnotationsChanged[*corev1.ConfigMap](),
	}
	for _, tc := range []struct {
		name     string
		old, new *corev1.ConfigMap
		pass     []string // predicates that must pass; all others must drop
	}{
		{"identical (resync)", obj(), obj(), nil},
		{"status-like write", obj(), obj(statusish), []string{"ResourceVersionChanged"}},
		{"spec change", obj(), obj(gen2, rv11), []string{"GenerationChanged", "ResourceVersionChanged"}},
		{"labels", obj(), obj(relabel, rv11), []string{"LabelsChanged", "ResourceVersionChanged"}},
		{"annotations", obj(), obj(reannot, rv11), []string{"AnnotationsChanged", "ResourceVersionChanged"}},
		{"deletion starts, generation bumped", obj(), obj(deleting, gen2, rv11), []string{"GenerationChanged", "ResourceVersionChanged"}},
		{"deletion starts, kind without generation", obj(noGen), obj(noGen, deleting, rv11), []string{"GenerationChanged", "ResourceVersionChanged"}},
		{"already deleting, finalizer edit", obj(deleting), obj(deleting, rv11), []string{"ResourceVersionChanged"}},
		{"re-created under the same name, same generation", obj(), obj(newUID, rv11), []string{"GenerationChanged", "ResourceVersionChanged"}},
		{"nil old", nil, obj(), nil},
		{"nil new", obj(), nil, nil},
	} {
		for name, p := range preds {
			want := false
			for _, n := range tc.pass {
				want = want || n == name
			}
			if got := p.Update(event.Update[*corev1.ConfigMap]{ObjectOld: tc.old, ObjectNew: tc.new}); got != want {
				t.Errorf("%s: %s.Update = %v, want %v", tc.name, name, got, want)
			}
		}
	}
}

func TestChangePredicatesPassOtherEvents(t *testing.T) {
	p := GenerationChanged[*corev1.ConfigMap]()
	if !p.Create(event.Create[*corev1.ConfigMap]{Object: obj()}) || !p.Delete(event.Delete[*corev1.ConfigMap]{Object: obj()}) ||
		!p.Generic(event.Generic[*corev1.ConfigMap]{Object: obj()}) {
		t.Fatal("GenerationChanged must pass create, delete and generic events")
	}
	// A tombstone without a last known state is still a deletion to handle.
	if !p.Delete(event.Delete[*corev1.ConfigMap]{DeleteStateUnknown: true}) {
		t.Fatal("GenerationChanged must pass a delete with no object")
	}
}

func TestMissingObjectIsLogged(t *testing.T) {
	var lines []string
	log := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
	p := GenerationChanged[*corev1.ConfigMap](WithLogger(log))
	if p.Update(event.Update[*corev1.ConfigMap]{ObjectNew: obj()}) {
		t.Fatal("update without old object passed")
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "GenerationChanged") || !strings.Contains(lines[0], `"oldMissing"=true`) {
		t.Fatalf("log: %q", lines)
	}
}

// An interface type parameter can carry a typed nil pointer; that must not panic either.
func TestTypedNilThroughInterface(t *testing.T) {
	var typedNil *corev1.ConfigMap
	p := LabelsChanged[object.Object]()
	if p.Update(event.Update[object.Object]{ObjectOld: typedNil, ObjectNew: obj()}) {
		t.Fatal("typed nil old object passed")
	}
	f := NewFilter(func(o object.Object) bool { return o.GetName() == "a" })
	if f.Create(event.Create[object.Object]{Object: typedNil}) {
		t.Fatal("filter passed a typed nil")
	}
}

func TestLabelSelector(t *testing.T) {
	p, err := LabelSelector[*corev1.ConfigMap](metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Create(event.Create[*corev1.ConfigMap]{Object: obj()}) || p.Create(event.Create[*corev1.ConfigMap]{Object: obj(relabel)}) {
		t.Fatal("selector app=web misclassified")
	}
	if p.Update(event.Update[*corev1.ConfigMap]{ObjectOld: obj(), ObjectNew: obj(relabel)}) {
		t.Fatal("update is judged on the new object")
	}
	removals, err := LabelSelector[*corev1.ConfigMap](metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, WithRemovals(true))
	if err != nil {
		t.Fatal(err)
	}
	if !removals.Update(event.Update[*corev1.ConfigMap]{ObjectOld: obj(), ObjectNew: obj(relabel)}) {
		t.Fatal("WithRemovals(true): the update that removes the label was dropped")
	}
	if removals.Update(event.Update[*corev1.ConfigMap]{ObjectOld: obj(relabel), ObjectNew: obj(relabel, rv11)}) {
		t.Fatal("WithRemovals(true): an update of an object that never matched passed")
	}
	_, err = LabelSelector[*corev1.ConfigMap](metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Sideways"}}})
	if err == nil || !strings.Contains(err.Error(), "Sideways") {
		t.Fatalf("invalid selector: %v", err)
	}
}

func TestCombinators(t *testing.T) {
	yes := Funcs[*corev1.ConfigMap]{}
	no := Not[*corev1.ConfigMap](yes)
	calls := 0
	counting := Funcs[*corev1.ConfigMap]{CreateFunc: func(event.Create[*corev1.ConfigMap]) bool { calls++; return true }}
	e := event.Create[*corev1.ConfigMap]{Object: obj()}
	for _, tc := range []struct {
		name string
		p    Predicate[*corev1.ConfigMap]
		want bool
	}{
		{"empty Funcs passes", yes, true},
		{"Not", no, false},
		{"And all yes", And(yes, yes), true},
		{"And one no", And(yes, no), false},
		{"And none", And[*corev1.ConfigMap](), true},
		{"Or one yes", Or(no, yes), true},
		{"Or none", Or[*corev1.ConfigMap](), false},
	} {
		if got := tc.p.Create(e); got != tc.want {
			t.Errorf("%s: got %v want %v", tc.name, got, tc.want)
		}
	}
	And(no, counting).Create(e)
	Or(yes, counting).Create(e)
	if calls != 0 {
		t.Fatalf("And/Or must stop at the first decisive answer; later predicate ran %d times", calls)
	}
}

func TestWasOrIs(t *testing.T) {
	type CM = *corev1.ConfigMap
	web := func(c CM) bool { return c.Labels["app"] == "web" }
	p := WasOrIs(web)
	for _, tc := range []struct {
		name     string
		old, new CM
		want     bool
	}{
		{"matches before and after", obj(), obj(rv11), true},
		{"label added", obj(relabel), obj(), true},
		{"label removed", obj(), obj(relabel), true},
		{"never matched", obj(relabel), obj(relabel, rv11), false},
		{"old missing, new matches", nil, obj(), true},
		{"old matched, new missing", obj(), nil, true},
		{"both missing", nil, nil, false},
	} {
		if got := p.Update(event.Update[CM]{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: Update = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !p.Create(event.Create[CM]{Object: obj()}) || p.Create(event.Create[CM]{Object: obj(relabel)}) ||
		!p.Delete(event.Delete[CM]{Object: obj()}) || p.Delete(event.Delete[CM]{Object: obj(relabel)}) ||
		!p.Generic(event.Generic[CM]{Object: obj()}) || p.Generic(event.Generic[CM]{Object: obj(relabel)}) {
		t.Fatal("creates, deletes and generic events must pass exactly when their object matches")
	}
	if NewFilter(web).Update(event.Update[CM]{ObjectOld: obj(), ObjectNew: obj(relabel)}) {
		t.Fatal("NewFilter passed the removal: it judges the new object only")
	}
}
