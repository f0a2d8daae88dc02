package informer

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// cacheMode runs a test against a shared and against a compact cache.
type cacheMode struct{ compact bool }

func forCacheModes(t *testing.T, test func(*testing.T, cacheMode)) {
	for _, m := range []cacheMode{{false}, {true}} {
		name := "shared"
		if m.compact {
			name = "compact"
		}
		t.Run(name, func(t *testing.T) { test(t, m) })
	}
}

func (m cacheMode) opt() Option { return WithCompact(m.compact) }

func (m cacheMode) cache(t *testing.T) *Cache[*corev1.Pod] {
	return newTestCache[*corev1.Pod](t, m.compact)
}

func newTestCache[T object.Object](t *testing.T, compact bool) *Cache[T] {
	t.Helper()
	if !compact {
		return NewCache[T]()
	}
	c, err := NewCompactCache[T]()
	if err != nil {
		t.Fatal(err)
	}
	c.onError = func(err error) { t.Errorf("compact cache: %v", err) }
	return c
}

// gadget is a custom resource's Go type with the field types that need
// care: quantities, int-or-strings, times, pointers, maps, nested slices.
type gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              gadgetSpec `json:"spec"`
}

type gadgetSpec struct {
	Size     resource.Quantity    `json:"size"`
	Port     intstr.IntOrString   `json:"port"`
	Replicas *int32               `json:"replicas,omitempty"`
	Since    metav1.Time          `json:"since"`
	Env      map[string]string    `json:"env,omitempty"`
	Rules    [][]string           `json:"rules,omitempty"`
	Ports    []corev1.ServicePort `json:"ports,omitempty"`
	Ratio    float64              `json:"ratio"`
	Bytes    []byte               `json:"bytes,omitempty"`
}

func (g *gadget) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Size = g.Spec.Size.DeepCopy()
	if g.Spec.Replicas != nil {
		out.Spec.Replicas = ptrTo(*g.Spec.Replicas)
	}
	out.Spec.Since = *g.Spec.Since.DeepCopy()
	out.Spec.Env = maps.Clone(g.Spec.Env)
	if g.Spec.Rules != nil {
		out.Spec.Rules = make([][]string, len(g.Spec.Rules))
		for i, r := range g.Spec.Rules {
			out.Spec.Rules[i] = slices.Clone(r)
		}
	}
	out.Spec.Ports = slices.Clone(g.Spec.Ports)
	out.Spec.Bytes = slices.Clone(g.Spec.Bytes)
	return &out
}

// blob is a custom resource with an embedded RawExtension, kept as its
// raw bytes.
type blob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              runtime.RawExtension `json:"data"`
}

func (b *blob) DeepCopyObject() runtime.Object {
	out := *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = *b.Data.DeepCopy()
	return &out
}

// anyBlob is a custom resource with a field of any JSON: the fields form
// has no form for it, so it is kept as JSON.
type anyBlob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              map[string]any `json:"data"`
}

func (b *anyBlob) DeepCopyObject() runtime.Object {
	out := *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = runtime.DeepCopyJSON(b.Data)
	return &out
}

func ptrTo[T any](v T) *T { return &v }

// fromJSON returns obj as its JSON decodes.
func fromJSON[T any](t *testing.T, obj *T) *T {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

var testTime = metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))

func testMeta(i int) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: fmt.Sprintf("ns-%d", i%3), Name: fmt.Sprintf("o-%03d", i), UID: types.UID(fmt.Sprint("uid-", i)),
		ResourceVersion: fmt.Sprint(100 + i), Generation: int64(i % 4), CreationTimestamp: testTime,
		Labels: map[string]string{"app": fmt.Sprintf("a%d", i%5)}, Annotations: map[string]string{"note": strings.Repeat("x", i%7)},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "App", Name: "owner", UID: "owner-uid", Controller: ptrTo(true)}},
		Finalizers:      []string{"example.com/cleanup"},
	}
}

// roundTrip stores n objects (more than the recent set, so that both
// decoded copies and decodes are read) and checks that every read gives an
// equal object, whichever form the codec picked: by equality.Semantic, and
// by reflect.DeepEqual if exact.
func roundTrip[T object.Object](t *testing.T, wantForm string, n int, make func(i int) T, exact ...bool) {
	t.Helper()
	c := newTestCache[T](t, true)
	if c.compact.codec.form != wantForm {
		t.Fatalf("%T kept as %s, want %s", *new(T), c.compact.codec.form, wantForm)
	}
	for i := range n {
		if err := c.Indexer().Add(make(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		want := make(i)
		got, ok := c.GetByKey(object.Key(want))
		if !ok {
			t.Fatalf("%s missing", object.Key(want))
		}
		if !equality.Semantic.DeepEqual(got, want) || (len(exact) > 0 && exact[0] && !reflect.DeepEqual(got, want)) {
			t.Fatalf("%s read back differs:\n got %#v\nwant %#v", object.Key(want), got, want)
		}
	}
	if got := len(c.List()); got != n {
		t.Fatalf("List: %d objects, want %d", got, n)
	}
}

func TestCompactCacheRoundTrip(t *testing.T) {
	const n = recentSize + 50
	t.Run("ConfigMap", func(t *testing.T) {
		roundTrip(t, "protobuf", n, func(i int) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: testMeta(i), Data: map[string]string{"k": fmt.Sprint(i)}, BinaryData: map[string][]byte{"b": {0, byte(i)}}}
		})
	})
	t.Run("ConfigMap with apiVersion and kind", func(t *testing.T) {
		roundTrip(t, "protobuf", n, func(i int) *corev1.ConfigMap {
			return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: testMeta(i)}
		})
	})
	t.Run("Pod with managedFields", func(t *testing.T) {
		roundTrip(t, "protobuf", n, func(i int) *corev1.Pod {
			m := testMeta(i)
			m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, Time: &testTime,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)}}
			return &corev1.Pod{ObjectMeta: m, Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Name: "c", Image: "i",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}}}
		})
	})
	t.Run("PartialObjectMetadata", func(t *testing.T) {
		roundTrip(t, "protobuf", n, func(i int) *metav1.PartialObjectMetadata {
			return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: testMeta(i)}
		})
	})
	newGadget := func(i int) *gadget {
		return &gadget{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Gadget"}, ObjectMeta: testMeta(i), Spec: gadgetSpec{
			Size: resource.MustParse(fmt.Sprintf("%dMi", i)), Port: intstr.FromString("http"), Replicas: ptrTo(int32(i)), Since: testTime,
			Env: map[string]string{"A": "1"}, Rules: [][]string{{"x", "y"}, {}}, Ports: []corev1.ServicePort{{Name: "p", Port: 80, TargetPort: intstr.FromInt32(8080)}},
			Ratio: 0.5 + float64(i), Bytes: []byte{1, 2, byte(i)},
		}}
	}
	t.Run("typed custom resource", func(t *testing.T) {
		roundTrip(t, "fields", n, newGadget)
	})
	// What a cache holds of a custom resource is what the API server's
	// JSON decodes to (times in Local, quantities as parsed): read back
	// DeepEqual, as a shared cache would give it.
	t.Run("typed custom resource decoded from JSON", func(t *testing.T) {
		roundTrip(t, "fields", n, func(i int) *gadget {
			g := newGadget(i)
			g.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Time: &testTime, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)}}
			return fromJSON(t, g)
		}, true)
	})
	t.Run("typed custom resource with managedFields", func(t *testing.T) {
		roundTrip(t, "fields", n, func(i int) *gadget {
			m := testMeta(i)
			m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)}}
			return &gadget{ObjectMeta: m, Spec: gadgetSpec{Size: resource.MustParse("1"), Port: intstr.FromInt32(int32(i))}}
		})
	})
	t.Run("typed custom resource with a RawExtension", func(t *testing.T) {
		roundTrip(t, "fields", n, func(i int) *blob {
			return &blob{ObjectMeta: testMeta(i), Data: runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"n":%d,"s":"x"}`, i))}}
		}, true)
	})
	t.Run("typed custom resource with an interface field", func(t *testing.T) {
		roundTrip(t, "json", n, func(i int) *anyBlob {
			return &anyBlob{ObjectMeta: testMeta(i), Data: map[string]any{"n": int64(i), "s": []any{"x", true}}}
		})
	})
	t.Run("Unstructured", func(t *testing.T) {
		roundTrip(t, "json", n, func(i int) *unstructured.Unstructured {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "example.com/v1", "kind": "Widget",
				"spec": map[string]any{"n": int64(i), "f": 1.5, "list": []any{"a", int64(2), true, nil}},
			}}
			u.SetNamespace("ns")
			u.SetName(fmt.Sprintf("w-%03d", i))
			u.SetLabels(map[string]string{"app": "x"})
			return u
		})
	})
}

// TestCompactCacheReadsAreOwned changes every object a read returns and
// checks that neither the cache nor the objects handlers got changed:
// for objects read back from their encoding and for recent ones, which
// are copied.
func TestCompactCacheReadsAreOwned(t *testing.T) {
	c := newTestCache[*corev1.ConfigMap](t, true)
	if err := c.AddIndex("app", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Labels["app"]}, nil }); err != nil {
		t.Fatal(err)
	}
	const n = recentSize + 10
	stored := make([]*corev1.ConfigMap, n)
	for i := range n {
		stored[i] = &corev1.ConfigMap{ObjectMeta: testMeta(i), Data: map[string]string{"k": "v"}}
		c.mu.Lock()
		if _, err := c.put(object.Key(stored[i]), stored[i], true); err != nil {
			t.Fatal(err)
		}
		c.mu.Unlock()
	}
	pristine := make([]*corev1.ConfigMap, n)
	for i, cm := range stored {
		pristine[i] = cm.DeepCopy()
	}
	scribble := func(cms ...*corev1.ConfigMap) {
		for _, cm := range cms {
			cm.Labels["app"] = "changed"
			cm.Data["k"] = "changed"
			cm.OwnerReferences[0].Name = "changed"
			cm.Name = "changed"
		}
	}
	cold, hot := stored[0], stored[n-1] // the first ones stored are no longer recent
	for _, cm := range []*corev1.ConfigMap{cold, hot} {
		got, _ := c.Get(cm.Namespace, cm.Name)
		scribble(got)
		got, _, _ = func() (*corev1.ConfigMap, bool, error) {
			o, ok, err := c.Indexer().GetByKey(object.Key(cm))
			return o.(*corev1.ConfigMap), ok, err
		}()
		scribble(got)
	}
	scribble(c.List()...)
	byApp, _ := c.ByIndex("app", "a0")
	scribble(byApp...)
	inNS, _ := c.ByIndex(NamespaceIndex, "ns-1")
	scribble(inNS...)

	for i, want := range pristine {
		if !reflect.DeepEqual(stored[i], want) {
			t.Fatalf("the object handed to handlers for %s changed: %v", object.Key(want), stored[i])
		}
		got, ok := c.Get(want.Namespace, want.Name)
		if !ok || !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("cached %s changed by a reader: %v", object.Key(want), got)
		}
	}
	if keys, _ := c.IndexKeys("app", "changed"); len(keys) != 0 {
		t.Fatalf("index changed by a reader: %v", keys)
	}
}

// TestCompactInformerEvents checks what handlers get from a compact
// informer: the objects the watch delivered, updates with the previous
// state whether or not it is still decoded, no updates from a relist for
// unchanged objects, and tombstones with the last state.
func TestCompactInformerEvents(t *testing.T) {
	forCacheModes(t, func(t *testing.T, mode cacheMode) {
		const n = recentSize + 20
		var first []*corev1.ConfigMap
		for i := range n {
			cm := cmv(fmt.Sprintf("o%03d", i), fmt.Sprint(i+1))
			cm.Data = map[string]string{"k": "v"}
			first = append(first, cm)
		}
		// The relist: o000 changed, o001 gone, the rest unchanged.
		lw := newScriptLW(list("1000", first...), list("2000", append([]*corev1.ConfigMap{cmv("o000", "1500")}, first[2:]...)...))
		inf := mustNew[*corev1.ConfigMap](t, lw, mode.opt())
		rec := &recorder{}
		var mu sync.Mutex
		var objs []event.Update[*corev1.ConfigMap]
		reg, _ := inf.AddHandler(rec)
		_, _ = inf.AddHandler(HandlerFuncs[*corev1.ConfigMap]{UpdateFunc: func(e event.Update[*corev1.ConfigMap]) {
			mu.Lock()
			objs = append(objs, e)
			mu.Unlock()
		}})
		stop := runInformer(t, inf)
		defer stop()
		w := lw.nextWatch(t)
		testkit.Eventually(t, 10*time.Second, "sync", reg.HasSynced)

		// o002 is no longer among the recent objects, the last one is.
		// (Each update is awaited: a handler that lags would get them merged.)
		w.Modify(cmv("o002", "1001"))
		testkit.Eventually(t, 10*time.Second, "update of a cold object", has(rec, "update o002 3->1001"))
		last := fmt.Sprintf("o%03d", n-1)
		w.Modify(cmv(last, "1002"))
		testkit.Eventually(t, 10*time.Second, "update of a recent object", has(rec, fmt.Sprintf("update %s %d->1002", last, n)))
		w.Modify(cmv(last, "1003"))
		testkit.Eventually(t, 10*time.Second, "update of an object just updated", has(rec, "update "+last+" 1002->1003"))
		mu.Lock()
		if objs[0].ObjectOld.Data["k"] != "v" || objs[0].ObjectOld.Name != "o002" {
			t.Fatalf("old state of an update read back wrong: %+v", objs[0].ObjectOld)
		}
		mu.Unlock()

		w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
		lw.nextWatch(t)
		testkit.Eventually(t, 10*time.Second, "relist", has(rec, "delete ns/o001 unknown=true"))
		testkit.Eventually(t, 10*time.Second, "relist update", has(rec, "update o000 1->1500"))
		updates := 0
		for _, e := range rec.seen() {
			if strings.HasPrefix(e, "update") {
				updates++
			}
		}
		// o002 and the last one went back to their listed state: updates too.
		if updates != 3+3 {
			t.Fatalf("relist of unchanged objects delivered updates: %d in all: %v", updates, rec.seen())
		}
		if got, _ := inf.Cache().Get("ns", "o000"); got.ResourceVersion != "1500" {
			t.Fatalf("o000 after the relist: %v", got)
		}
	})
}

func TestCompactCacheRaces(t *testing.T) {
	c := newTestCache[*corev1.ConfigMap](t, true)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := range 2000 {
				name := fmt.Sprintf("o%d", i%300)
				if cm, ok := c.Get("ns", name); ok {
					cm.Labels["a"] = fmt.Sprint(r) // owned: no race with anyone
				}
				for _, cm := range c.List() {
					cm.Labels = nil
				}
			}
		})
	}
	for i := range 2000 {
		cm := cmv(fmt.Sprintf("o%d", i%300), fmt.Sprint(i))
		cm.Labels = map[string]string{"a": "b"}
		if err := c.Indexer().Update(cm); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			_ = c.Indexer().Delete(cm)
		}
	}
	wg.Wait()
}
