package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/testenv"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// share one local control plane, started by the first that asks for it.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestMirror runs the example's story against a local control plane and
// checks that every change reached the copies, each with exactly the writes
// it needed.
func TestMirror(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	s, err := run(ctx, testenv.Shared(t).Config, &out)
	if err != nil {
		t.Fatalf("%v\noutput:\n%s", err, out.String())
	}
	// Copies created: 2 targets + 1 new target. Updated: 2 for the source
	// edit + 1 restored by-hand edit. Deleted: 1 former target + 2 when the
	// source goes. A write the cache had not yet heard of is never repeated.
	if s.Steps != 6 || s.Created != 3 || s.Updated != 3 || s.Deleted != 3 {
		t.Errorf("summary %+v, want 6 steps and 3 copies created, updated and deleted\n%s", s, out.String())
	}
	if s.Reconciles < int64(s.Steps) {
		t.Errorf("%d reconciles for %d steps: each step needs one\n%s", s.Reconciles, s.Steps, out.String())
	}
	for _, line := range []string{
		"created copy in mirror-a-",
		"created copy in mirror-c-", // the Namespace map function
		"updated copy in mirror-a-", // the copy map function restored the by-hand edit
		"deleted copy in mirror-b-", // the index found the copy in the former target
		"source gone; deleted copy in mirror-a-",
		"✓ no copies left",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

// TestMapFunctionsAndIndex checks the operator's pure parts: which objects
// are copies, how a copy maps to its source, and that scope keeps other
// runs' objects out.
func TestMapFunctionsAndIndex(t *testing.T) {
	scope := labels.Set{runLabel: "r1"}
	with := func(key string) labels.Set { return labels.Merge(scope, labels.Set{key: "true"}) }
	o := &operator{
		sources: labels.SelectorFromSet(with(enabledLabel)),
		targets: labels.SelectorFromSet(with(targetLabel)),
		copies:  labels.SelectorFromSet(with(mirrorLabel)),
	}
	cm := func(lbls labels.Set, source string) *corev1.ConfigMap {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "cfg", Labels: lbls}}
		if source != "" {
			c.Annotations = map[string]string{sourceAnnotation: source}
		}
		return c
	}

	cp := cm(with(mirrorLabel), "a/cfg")
	if keys, _ := o.indexBySource(cp); len(keys) != 1 || keys[0] != "a/cfg" {
		t.Errorf("copy indexed under %v, want [a/cfg]", keys)
	}
	if reqs := o.sourceOfCopy(context.Background(), cp); len(reqs) != 1 || reqs[0].String() != "a/cfg" {
		t.Errorf("copy maps to %v, want [a/cfg]", reqs)
	}
	otherRun := cm(labels.Set{mirrorLabel: "true", runLabel: "r2"}, "a/cfg")
	for name, c := range map[string]*corev1.ConfigMap{
		"another run's copy":        otherRun,
		"a source":                  cm(with(enabledLabel), ""),
		"a copy without annotation": cm(with(mirrorLabel), ""),
	} {
		if keys, _ := o.indexBySource(c); len(keys) != 0 {
			t.Errorf("%s indexed under %v", name, keys)
		}
		if reqs := o.sourceOfCopy(context.Background(), c); len(reqs) != 0 {
			t.Errorf("%s maps to %v", name, reqs)
		}
	}

	// A source that loses its label must still reach the reconciler, through
	// the filter newOperator puts in front of it.
	p := predicate.WasOrIs(o.isSource)
	src, plain := cm(with(enabledLabel), ""), cm(scope, "")
	if !p.Update(event.Update[*corev1.ConfigMap]{ObjectOld: src, ObjectNew: plain}) {
		t.Error("the update that removes the enabled label was filtered out")
	}
	if p.Update(event.Update[*corev1.ConfigMap]{ObjectOld: plain, ObjectNew: plain}) {
		t.Error("an update of a ConfigMap that never was a source passed")
	}
}
