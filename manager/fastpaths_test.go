package manager_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// Widget is the custom resource of operatortest/testdata/widgets.yaml,
// as kubebuilder would generate its Go type: its schema defaults
// spec.size to 1 and refuses a size below 1, and it has a status
// subresource.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is a Widget's spec.
type WidgetSpec struct {
	Size *int64 `json:"size,omitempty"`
}

// WidgetStatus is a Widget's status.
type WidgetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// DeepCopyObject returns a copy of w that shares nothing with it.
func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Size != nil {
		size := *w.Spec.Size
		out.Spec.Size = &size
	}
	return &out
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject returns a copy of l that shares nothing with it.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

var widgetGV = schema.GroupVersion{Group: "operatortest.steady.dev", Version: "v1"}

// fastPathsLabel labels every object the scenario creates.
const fastPathsLabel = "fastpaths"

// TestFastPathsChangeNothingAControllerSees runs one scenario with a
// manager made WithFastPaths(true) and again with one made
// WithFastPaths(false), each in a namespace of its own, and compares all a
// controller sees, normalized for what differs between two runs (the
// namespace, uids, resourceVersions as their order in the run, times,
// generated names): the events a handler gets, the requests a controller
// gets and what its reconciler reads, the objects the client's cache
// reads, live reads and writes return, and the errors of failing requests
// (a stale update, a duplicate create, missing objects, invalid ones).
// The scenario covers ConfigMaps (protobuf: steady's own decoding and
// encoding with fast paths, client-go's without) and Widgets, a custom
// resource: JSON either way on the shared control plane, and CBOR with
// fast paths on a control plane of its own with the CBORServingAndStorage
// feature gate. Fast paths are only faster: a difference is a bug.
func TestFastPathsChangeNothingAControllerSees(t *testing.T) {
	t.Run("shared", func(t *testing.T) { compareFastPaths(t, testkit.Env(t), false) })
	t.Run("cbor", func(t *testing.T) {
		compareFastPaths(t, testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=CBORServingAndStorage=true")), true)
	})
}

// compareFastPaths plays the scenario on env with and without fast paths
// and fails t where what was seen differs. With cbor, env's API server
// serves CBOR, and the run with fast paths must have read Widgets as
// CBOR.
func compareFastPaths(t *testing.T, env *testenv.Environment, cbor bool) {
	crds, err := testenv.ReadCRDs("../operatortest/testdata/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.InstallCRDs(context.Background(), crds...); err != nil {
		t.Fatal(err)
	}
	var runs [2]*transcript
	for i, fast := range []bool{true, false} {
		runs[i] = playFastPaths(t, env, fast)
		mt := runs[i].answers
		switch {
		case !slices.Contains(mt["configmaps"], "application/vnd.kubernetes.protobuf"):
			t.Errorf("fast paths %v: ConfigMaps answered as %q, want protobuf among them", fast, mt["configmaps"])
		case cbor && fast && !slices.Contains(mt["widgets"], "application/cbor"):
			t.Errorf("fast paths on, CBOR served: Widgets answered as %q, want CBOR among them", mt["widgets"])
		case (!cbor || !fast) && slices.Contains(mt["widgets"], "application/cbor"):
			t.Errorf("fast paths %v, CBOR served %v: Widgets answered as %q, want no CBOR", fast, cbor, mt["widgets"])
		}
	}
	on, off := runs[0].normalized(), runs[1].normalized()
	// What must be there, so that equal transcripts mean something.
	for _, what := range []string{
		"configmaps event", "configmaps reconcile", "configmaps create", "configmaps update", "configmaps patch",
		"configmaps modify", "configmaps apply", "configmaps delete", "configmaps cache", "configmaps live", "configmaps error",
		"widgets event", "widgets reconcile", "widgets create", "widgets update", "widgets patch",
		"widgets modify", "widgets apply", "widgets status", "widgets delete", "widgets cache", "widgets live", "widgets error",
	} {
		if !slices.ContainsFunc(on, func(e entry) bool { return strings.HasPrefix(e.what, what) }) {
			t.Errorf("with fast paths, nothing recorded for %q", what)
		}
	}
	if t.Failed() {
		return
	}
	differ := 0
	for i := range max(len(on), len(off)) {
		var a, b entry
		if i < len(on) {
			a = on[i]
		}
		if i < len(off) {
			b = off[i]
		}
		if a == b {
			continue
		}
		if differ++; differ <= 10 {
			t.Errorf("entry %d differs:\nwith fast paths:    %s: %s\nwithout fast paths: %s: %s", i, a.what, a.text, b.what, b.text)
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d and %d entries differ", differ, len(on), len(off))
	}
	t.Logf("%d entries compared: %d events, %d reconciles, %d errors", len(on),
		count(on, " event"), count(on, " reconcile"), count(on, " error"))
}

// count returns how many entries' what contains s.
func count(entries []entry, s string) int {
	n := 0
	for _, e := range entries {
		if strings.Contains(e.what, s) {
			n++
		}
	}
	return n
}

// playFastPaths runs a manager on env, with or without fast paths, in a
// new namespace, through the scenario for ConfigMaps and for Widgets, and
// returns what it saw.
func playFastPaths(t *testing.T, env *testenv.Environment, fast bool) *transcript {
	t.Helper()
	ns := env.NewNamespace(t, "fastpaths-")
	tr := &transcript{ns: ns, names: map[string]string{}, answers: map[string][]string{}}
	cfg := rest.CopyConfig(env.Config)
	cfg.Wrap(tr.wrap)
	m, err := manager.New(cfg, manager.WithScheme(testkit.Scheme(t, widgetGV, &Widget{}, &WidgetList{})),
		manager.WithNamespace(ns), manager.WithFastPaths(fast))
	if err != nil {
		t.Fatal(err)
	}
	if m.Cluster().FastPaths() != fast {
		t.Fatalf("manager.WithFastPaths(%v): the cluster's FastPaths() is %v", fast, !fast)
	}
	cms := newLane(t, m, tr, "configmaps", configMapKind)
	widgets := newLane(t, m, tr, "widgets", widgetKind)
	for _, compact := range []bool{cms.client.Informer().Cache().Compact(), widgets.client.Informer().Cache().Compact()} {
		if compact != fast {
			t.Fatalf("fast paths %v: a cache is compact: %v, want %v", fast, compact, fast)
		}
	}
	cms.before()
	widgets.before()
	stop := start(t, m)
	cms.play()
	widgets.play()
	if err := stop(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	cms.finish()
	widgets.finish()
	return tr
}

// kind is what the scenario needs to know of a kind T.
type kind[T object.Object] struct {
	new        func(name string) T  // an object named name, labelled, of value 0
	value      func(obj T) int64    // the value obj holds
	setValue   func(obj T, v int64) // sets obj's value
	mergePatch func(v int64) []byte // a merge patch setting the value and label patched=yes
	setStatus  func(obj T)          // changes obj's status; nil for a kind without one
	invalid    func(ns string) []T  // objects the API server refuses as invalid
	// applied is what an apply of value v to namespace/name sends.
	applied func(namespace, name string, v int64) *unstructured.Unstructured
}

var configMapKind = kind[*corev1.ConfigMap]{
	new: func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": fastPathsLabel}},
			Data: map[string]string{"value": "0"}}
	},
	value: func(cm *corev1.ConfigMap) int64 { v, _ := strconv.ParseInt(cm.Data["value"], 10, 64); return v },
	setValue: func(cm *corev1.ConfigMap, v int64) {
		cm.Data["value"] = strconv.FormatInt(v, 10)
	},
	mergePatch: func(v int64) []byte {
		return fmt.Appendf(nil, `{"metadata":{"labels":{"patched":"yes"}},"data":{"value":"%d"}}`, v)
	},
	applied: func(namespace, name string, v int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": namespace, "name": name}, "data": map[string]any{"value": strconv.FormatInt(v, 10)}}}
	},
	invalid: func(ns string) []*corev1.ConfigMap {
		return []*corev1.ConfigMap{
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "Not_A_Name"}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-key"}, Data: map[string]string{"no spaces": "x"}},
		}
	},
}

var widgetKind = kind[*Widget]{
	new: func(name string) *Widget {
		return &Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": fastPathsLabel}}}
	},
	value: func(w *Widget) int64 {
		if w.Spec.Size == nil {
			return 0
		}
		return *w.Spec.Size
	},
	setValue: func(w *Widget, v int64) { w.Spec.Size = &v },
	mergePatch: func(v int64) []byte {
		return fmt.Appendf(nil, `{"metadata":{"labels":{"patched":"yes"}},"spec":{"size":%d}}`, v)
	},
	setStatus: func(w *Widget) { w.Status.ObservedGeneration = w.Generation },
	applied: func(namespace, name string, v int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": widgetGV.String(), "kind": "Widget",
			"metadata": map[string]any{"namespace": namespace, "name": name}, "spec": map[string]any{"size": v}}}
	},
	invalid: func(ns string) []*Widget {
		zero := int64(0)
		return []*Widget{
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "Not_A_Name"}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "too-small"}, Spec: WidgetSpec{Size: &zero}},
		}
	},
}

// lane is one kind's part of a run: its client, what its handler and
// controller saw, and what the scenario has written.
type lane[T object.Object] struct {
	t        *testing.T
	resource string
	k        kind[T]
	ns       string
	tr       *transcript
	client   *client.Client[T]
	events   *seen // the handler's events
	requests *seen // the reconciler's requests and reads
	created  map[string]T
}

// newLane makes the client of T, a handler recording its informer's
// events, and a controller of T (builder.ControllerManagedBy) whose
// reconciler records each request and what the client's Get reads for it.
func newLane[T object.Object](t *testing.T, m *manager.Manager, tr *transcript, resource string, k kind[T]) *lane[T] {
	t.Helper()
	c, err := client.For[T](m.Factory(), "")
	if err != nil {
		t.Fatal(err)
	}
	l := &lane[T]{t: t, resource: resource, k: k, ns: tr.ns, tr: tr, client: c,
		events: &seen{}, requests: &seen{}, created: map[string]T{}}
	if _, err := c.Informer().AddHandler(informer.HandlerFuncs[T]{
		CreateFunc: func(e event.Create[T]) {
			l.events.add(object.Key(e.Object), e.Object.GetResourceVersion(), e.IsInInitialList,
				map[string]any{"event": "create", "initial": e.IsInInitialList, "object": e.Object})
		},
		UpdateFunc: func(e event.Update[T]) {
			l.events.add(object.Key(e.ObjectNew), e.ObjectNew.GetResourceVersion(), false,
				map[string]any{"event": "update", "old": e.ObjectOld, "new": e.ObjectNew})
		},
		DeleteFunc: func(e event.Delete[T]) {
			l.events.add(object.FormatKey(e.Key), "", false,
				map[string]any{"event": "delete", "key": object.FormatKey(e.Key), "unknown": e.DeleteStateUnknown, "object": e.Object})
		},
	}); err != nil {
		t.Fatal(err)
	}
	var zero T
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		obj, err := c.Get(ctx, req.Namespace, req.Name)
		rv := ""
		if err == nil {
			rv = obj.GetResourceVersion()
		} else if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err // not yet: a retry records it
		}
		l.requests.add(req.String(), rv, false, map[string]any{"request": req.String(), "read": obj, "error": errorOf(err)})
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(zero)).Named(strings.TrimSuffix(resource, "s")).Complete(r); err != nil {
		t.Fatal(err)
	}
	return l
}

// record adds what happened to the transcript: v, an object, a list or an
// error.
func (l *lane[T]) record(what string, obj any, err error) {
	l.tr.add(l.resource+" "+what, map[string]any{"object": obj, "error": errorOf(err)})
}

// before creates the objects the informers' first lists hold: a, b and
// one named by generateName.
func (l *lane[T]) before() {
	ctx := context.Background()
	for _, name := range []string{"a", "b", ""} {
		obj := l.k.new(name)
		obj.SetNamespace(l.ns)
		if name == "" {
			obj.SetGenerateName("gen-")
		}
		got, err := l.client.Create(ctx, obj)
		if err != nil {
			l.t.Fatalf("creating %s %s: %v", l.resource, name, err)
		}
		if name == "" {
			name = "gen"
			l.tr.generated(got.GetName(), "gen-")
		}
		l.created[name] = got
		l.record("create "+name, got, nil)
	}
}

// settle waits until the handler, the cache and the reconciler have all
// seen name at resourceVersion rv, or gone if rv is "", so that each
// write is seen on its own and the runs stay comparable.
func (l *lane[T]) settle(name, rv string) {
	l.t.Helper()
	key := l.ns + "/" + name
	testenv.Eventually(l.t, 30*time.Second, fmt.Sprintf("%s %s at %q everywhere", l.resource, key, rv), func() error {
		if got, ok := l.events.latest(key); !ok || got != rv {
			return fmt.Errorf("the handler's last event is at %q (%v)", got, ok)
		}
		obj, err := l.client.Get(context.Background(), l.ns, name)
		switch {
		case rv == "" && !apierrors.IsNotFound(err):
			return fmt.Errorf("the cache holds it: %v", err)
		case rv != "" && err != nil:
			return err
		case rv != "" && obj.GetResourceVersion() != rv:
			return fmt.Errorf("the cache holds it at %s", obj.GetResourceVersion())
		}
		if got, ok := l.requests.latest(key); !ok || got != rv {
			return fmt.Errorf("the reconciler last read it at %q (%v)", got, ok)
		}
		return nil
	})
}

// reads records what the client's reads return: the cache's Get and List
// (all, in the namespace, by label), and the API server's.
func (l *lane[T]) reads(when string) {
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		obj, err := l.client.Get(ctx, l.ns, name)
		l.record("cache get "+name+" "+when, obj, err)
		obj, err = l.client.Live().Get(ctx, l.ns, name)
		l.record("live get "+name+" "+when, obj, err)
	}
	for _, list := range []struct {
		what string
		opts []client.ListOption
	}{
		{"all", nil},
		{"namespace", []client.ListOption{client.InNamespace(l.ns)}},
		{"label", []client.ListOption{client.Matching(object.Selector{Labels: "app=" + fastPathsLabel + ",patched!=yes"})}},
	} {
		objs, err := l.client.List(ctx, list.opts...)
		l.record("cache list "+list.what+" "+when, sortedByName(objs), err)
		objs, err = l.client.Live().List(ctx, append(list.opts, client.InNamespace(l.ns))...)
		l.record("live list "+list.what+" "+when, sortedByName(objs), err)
	}
}

// play runs the scenario once the manager runs: reads, every kind of
// write, and failing requests.
func (l *lane[T]) play() {
	ctx := context.Background()
	for _, name := range []string{"a", "b", "gen"} {
		l.settle(l.created[name].GetName(), l.created[name].GetResourceVersion())
	}
	gen := l.created["gen"].GetName()
	l.reads("at first")

	a := l.created["a"].DeepCopyObject().(T)
	l.k.setValue(a, 5)
	updated, err := l.client.Update(ctx, a)
	l.record("update a", updated, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("a", updated.GetResourceVersion())

	patched, err := l.client.Patch(ctx, l.ns, "b", types.MergePatchType, l.k.mergePatch(2))
	l.record("patch b, merge", patched, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("b", patched.GetResourceVersion())

	patched, err = l.client.Patch(ctx, l.ns, "b", types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/annotations","value":{"json":"patch"}}]`))
	l.record("patch b, JSON", patched, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("b", patched.GetResourceVersion())

	modified, err := l.client.Modify(ctx, l.ns, gen, func(obj T) error {
		l.k.setValue(obj, l.k.value(obj)+3)
		return nil
	})
	l.record("modify gen", modified, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle(gen, modified.GetResourceVersion())

	unchanged, err := l.client.Modify(ctx, l.ns, "a", func(T) error { return nil })
	l.record("modify a, no change", unchanged, err)

	// Server-Side Apply: a field another manager set is a conflict, unless
	// forced; an apply of an object that does not exist creates it.
	apply := func(name string, v int64, opts ...client.ApplyOption) (T, error) {
		return l.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(l.k.applied(l.ns, name, v)),
			append(opts, client.FieldManager("fastpaths"))...)
	}
	applied, err := apply("a", 6)
	l.record("error: apply a, conflict", applied, err)
	var conflict *client.ApplyConflictError
	if !errors.As(err, &conflict) {
		l.t.Fatalf("apply of a field another manager owns: %v, want an ApplyConflictError", err)
	}
	l.record("error: apply a, conflicts", conflict.Conflicts, nil)
	applied, err = apply("a", 6, client.ForceOwnership())
	l.record("apply a, forced", applied, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("a", applied.GetResourceVersion())
	updated = applied
	applied, err = apply("applied", 7)
	l.record("apply applied, created", applied, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("applied", applied.GetResourceVersion())

	if l.k.setStatus != nil {
		withStatus := updated.DeepCopyObject().(T)
		l.k.setStatus(withStatus)
		status, err := l.client.UpdateStatus(ctx, withStatus)
		l.record("status a", status, err)
		if err != nil {
			l.t.Fatal(err)
		}
		l.settle("a", status.GetResourceVersion())
		status, err = l.client.ModifyStatus(ctx, l.ns, "a", func(obj T) error {
			obj.SetLabels(map[string]string{"ignored": "outside the status"})
			l.k.setStatus(obj)
			return nil
		})
		l.record("status a, ModifyStatus changing labels only", status, err)
		if err != nil {
			l.t.Fatal(err)
		}
		l.settle("a", status.GetResourceVersion())
	}
	l.reads("after the writes")

	// Failing requests: none reaches the handler or the controller.
	stale := l.created["a"].DeepCopyObject().(T)
	l.k.setValue(stale, 9)
	obj, err := l.client.Update(ctx, stale)
	l.record("error: stale update", obj, err)
	// Requests for an object of no namespace, as a reconciler that
	// forgets to set one sends.
	obj, err = l.client.Create(ctx, l.k.new("a"))
	l.record("error: create without namespace", obj, err)
	noNamespace := l.created["a"].DeepCopyObject().(T)
	noNamespace.SetNamespace("")
	obj, err = l.client.Update(ctx, noNamespace)
	l.record("error: update without namespace", obj, err)
	obj, err = l.client.Live().Get(ctx, "", "a")
	l.record("error: live get without namespace", obj, err)
	obj, err = l.client.Patch(ctx, "", "a", types.MergePatchType, l.k.mergePatch(5))
	l.record("error: patch without namespace", obj, err)
	err = l.client.Delete(ctx, "", "a")
	l.record("error: delete without namespace", nil, err)
	again := l.k.new("a")
	again.SetNamespace(l.ns)
	obj, err = l.client.Create(ctx, again)
	l.record("error: duplicate create", obj, err)
	for _, bad := range l.k.invalid(l.ns) {
		obj, err = l.client.Create(ctx, bad)
		l.record("error: invalid create "+bad.GetName(), obj, err)
	}
	for _, name := range []string{"missing", "a b", "ä", "Not_A_Name"} {
		obj, err = l.client.Get(ctx, l.ns, name)
		l.record("error: cache get "+name, obj, err)
		obj, err = l.client.Live().Get(ctx, l.ns, name)
		l.record("error: live get "+name, obj, err)
	}
	missing := l.k.new("missing")
	missing.SetNamespace(l.ns)
	missing.SetResourceVersion("1")
	obj, err = l.client.Update(ctx, missing)
	l.record("error: update missing", obj, err)
	obj, err = l.client.Patch(ctx, l.ns, "missing", types.MergePatchType, l.k.mergePatch(4))
	l.record("error: patch missing", obj, err)
	obj, err = l.client.Patch(ctx, l.ns, "a", types.MergePatchType, []byte(`{"metadata":`))
	l.record("error: malformed patch", obj, err)
	obj, err = l.client.Modify(ctx, l.ns, "missing", func(T) error { return nil })
	l.record("error: modify missing", obj, err)
	obj, err = l.client.Modify(ctx, l.ns, "a", func(T) error { return errors.New("refused by mutate") })
	l.record("error: modify refused", obj, err)
	err = l.client.Delete(ctx, l.ns, "missing")
	l.record("error: delete missing", nil, err)
	err = l.client.Delete(ctx, l.ns, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptrTo("1")}})
	l.record("error: delete with a stale precondition", nil, err)

	err = l.client.Delete(ctx, l.ns, "b")
	l.record("delete b", nil, err)
	if err != nil {
		l.t.Fatal(err)
	}
	l.settle("b", "")
	l.reads("after the delete")
}

func ptrTo[V any](v V) *V { return &v }

// finish adds what the handler and the reconciler saw to the transcript:
// the first list's events in key order (informers list in no order), the
// others in the order they came; the requests as a sorted multiset
// (requests for different keys run in no order).
func (l *lane[T]) finish() {
	initial, later := l.events.all()
	sort.Strings(initial)
	for _, e := range initial {
		l.tr.addText(l.resource+" event (first list)", e)
	}
	for _, e := range later {
		l.tr.addText(l.resource+" event", e)
	}
	_, requests := l.requests.all()
	sort.Strings(requests)
	for _, r := range requests {
		l.tr.addText(l.resource+" reconcile", r)
	}
}

// sortedByName sorts objs by name, for lists that come in no order.
func sortedByName[T object.Object](objs []T) []T {
	slices.SortFunc(objs, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
	return objs
}

// errorOf is what the scenario compares of err: its text, and for an API
// error its reason, code and status.
func errorOf(err error) any {
	if err == nil {
		return nil
	}
	out := map[string]any{"text": err.Error(), "reason": apierrors.ReasonForError(err)}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		out["code"] = status.Status().Code
		out["status"] = status.Status()
	}
	return out
}

// seen records what a handler or a reconciler saw, as JSON, and the
// resourceVersion it last saw of each key ("" for gone).
type seen struct {
	mu      sync.Mutex
	initial []string
	later   []string
	last    map[string]string
}

func (s *seen) add(key, rv string, initial bool, v any) {
	text := marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string]string{}
	}
	s.last[key] = rv
	if initial {
		s.initial = append(s.initial, text)
	} else {
		s.later = append(s.later, text)
	}
}

func (s *seen) latest(key string) (rv string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv, ok = s.last[key]
	return rv, ok
}

func (s *seen) all() (initial, later []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.initial), slices.Clone(s.later)
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(not JSON: %v)", err)
	}
	return string(b)
}

// entry is one thing seen: what, and its JSON.
type entry struct{ what, text string }

// transcript is what one run saw, in order, and what normalizing it needs
// to know: the run's namespace and generated names, and the media types
// the API server answered in, by resource.
type transcript struct {
	ns      string
	mu      sync.Mutex
	entries []entry
	names   map[string]string // a generated name: its generateName and "*"
	answers map[string][]string
}

func (tr *transcript) add(what string, v any) { tr.addText(what, marshal(v)) }

func (tr *transcript) addText(what, text string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.entries = append(tr.entries, entry{what, text})
}

func (tr *transcript) generated(name, prefix string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.names[name] = prefix + "*"
}

// wrap records the media type of each answer about ConfigMaps or Widgets.
func (tr *transcript) wrap(rt http.RoundTripper) http.RoundTripper {
	return testkit.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		for _, resource := range []string{"configmaps", "widgets"} {
			if strings.Contains(req.URL.Path, "/"+resource) {
				mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
				tr.mu.Lock()
				if !slices.Contains(tr.answers[resource], mt) {
					tr.answers[resource] = append(tr.answers[resource], mt)
				}
				tr.mu.Unlock()
			}
		}
		return resp, err
	})
}

// normalized returns the entries with what differs between two runs
// replaced: the namespace by "NS", generated names by their generateName
// and "*", uids by "UID", times by "TIME", and each resourceVersion by its
// rank among the run's ("RV1" the oldest).
func (tr *transcript) normalized() []entry {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	decoded := make([]any, len(tr.entries))
	rvs := map[string]bool{}
	for i, e := range tr.entries {
		d := json.NewDecoder(bytes.NewReader([]byte(e.text)))
		d.UseNumber()
		if err := d.Decode(&decoded[i]); err != nil {
			decoded[i] = e.text
		}
		walk(decoded[i], func(m map[string]any, key string) {
			if rv, ok := m[key].(string); ok && key == "resourceVersion" && rv != "" {
				rvs[rv] = true
			}
		})
	}
	ranked := slices.Collect(maps.Keys(rvs))
	slices.SortFunc(ranked, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		return cmp.Compare(x, y)
	})
	rank := map[string]string{}
	for i, rv := range ranked {
		rank[rv] = "RV" + strconv.Itoa(i+1)
	}
	pairs := []string{tr.ns, "NS"}
	for name, norm := range tr.names {
		pairs = append(pairs, name, norm)
	}
	replacer := strings.NewReplacer(pairs...)
	out := make([]entry, len(tr.entries))
	for i, e := range tr.entries {
		walk(decoded[i], func(m map[string]any, key string) {
			s, ok := m[key].(string)
			if !ok || s == "" {
				return
			}
			switch key {
			case "uid":
				m[key] = "UID"
			case "resourceVersion":
				m[key] = rank[s]
			case "creationTimestamp", "deletionTimestamp", "time":
				m[key] = "TIME"
			default:
				// A conflict's message names the resourceVersion stored.
				m[key] = inRecord.ReplaceAllStringFunc(s, func(match string) string {
					rv := inRecord.FindStringSubmatch(match)[1]
					return strings.Replace(match, rv, rank[rv], 1)
				})
			}
		})
		out[i] = entry{replacer.Replace(e.what), replacer.Replace(marshal(decoded[i]))}
	}
	return out
}

// inRecord matches the resourceVersion in a failed precondition's
// message.
var inRecord = regexp.MustCompile(`ResourceVersion in record \((\d+)\)`)

// walk calls fn for every key of every JSON object in v.
func walk(v any, fn func(m map[string]any, key string)) {
	switch v := v.(type) {
	case map[string]any:
		for key := range v {
			fn(v, key)
			walk(v[key], fn)
		}
	case []any:
		for _, e := range v {
			walk(e, fn)
		}
	}
}
