package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unique"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The benchmarks in this file compare ways to keep an informer's objects
// (issue 24): decoded and shared, decoded with repeated strings interned,
// kept encoded with index values extracted, and kept encoded with a few
// recently read objects decoded. They measure the heap kept per object
// and the cost of a read. Objects are made by decoding wire bytes, as an
// informer's are, so that no two objects share string data by accident.

const compactObjects = 10_000

// realisticMeta is the metadata of object i of a controller's kind:
// recommended labels, a few annotations, an owner.
func realisticMeta(r *rand.Rand, i int) metav1.ObjectMeta {
	app := i % 50
	return metav1.ObjectMeta{
		Namespace:         fmt.Sprintf("team-%d-prod", i%10),
		Name:              fmt.Sprintf("app-%d-config-%d", app, i),
		UID:               types.UID(fakeUUID(r)),
		ResourceVersion:   strconv.Itoa(1_000_000 + i),
		CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 1, 0, 0, i%60, 0, time.UTC)),
		Labels: map[string]string{
			"app.kubernetes.io/name":       fmt.Sprintf("app-%d", app),
			"app.kubernetes.io/instance":   fmt.Sprintf("app-%d-%d", app, i%7),
			"app.kubernetes.io/managed-by": "steady-operator",
			"app.kubernetes.io/part-of":    "platform",
		},
		Annotations: map[string]string{
			"example.com/checksum": fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()),
			"example.com/observed": "run-1/0",
		},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "example.com/v1", Kind: "App", Name: fmt.Sprintf("app-%d", app),
			UID:        types.UID(fmt.Sprintf("0000000-0000-0000-0000-%012d", app)),
			Controller: ptr(true), BlockOwnerDeletion: ptr(true),
		}},
	}
}

func ptr[T any](v T) *T { return &v }

func fakeUUID(r *rand.Rand) string {
	b := fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	return b[:8] + "-" + b[8:12] + "-" + b[12:16] + "-" + b[16:20] + "-" + b[20:32]
}

func filler(r *rand.Rand, n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-_ :\n"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// wireConfigMaps returns n ConfigMaps with 256 bytes of data, protobuf
// encoded (without managedFields, which steady drops by default).
func wireConfigMaps(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, n)
	for i := range out {
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: realisticMeta(r, i),
			Data:       map[string]string{"config.yaml": filler(r, 248), "value": "0"},
		}
		b, err := cm.Marshal()
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

func decodeConfigMap(b []byte) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	if err := cm.Unmarshal(b); err != nil {
		panic(err)
	}
	return cm
}

// Widget is a custom resource as kubebuilder generates it.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Replicas int32           `json:"replicas,omitempty"`
	Image    string          `json:"image,omitempty"`
	Env      []corev1.EnvVar `json:"env,omitempty"`
	Config   string          `json:"config,omitempty"`
}

type WidgetStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Ready              bool               `json:"ready,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

func (w *Widget) DeepCopyObject() k8sruntime.Object { return w.DeepCopy() }

func (w *Widget) DeepCopy() *Widget {
	out := &Widget{TypeMeta: w.TypeMeta, Spec: w.Spec, Status: w.Status}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Env = make([]corev1.EnvVar, len(w.Spec.Env))
	for i := range w.Spec.Env {
		w.Spec.Env[i].DeepCopyInto(&out.Spec.Env[i])
	}
	out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
	for i := range w.Status.Conditions {
		w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
	}
	return out
}

func newWidget(r *rand.Rand, i int) *Widget {
	meta := realisticMeta(r, i)
	meta.Generation = 3
	t := metav1.NewTime(time.Date(2026, 11, 2, 0, 0, i%60, 0, time.UTC))
	return &Widget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: meta,
		Spec: WidgetSpec{
			Replicas: 3, Image: fmt.Sprintf("registry.example.com/app-%d:v1.%d", i%50, i%5),
			Env:    []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "REGION", Value: "eu-west-1"}, {Name: "MODE", Value: "active"}},
			Config: filler(r, 256),
		},
		Status: WidgetStatus{ObservedGeneration: 3, Ready: true, Conditions: []metav1.Condition{
			{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: t, Reason: "Reconciled", Message: "all replicas are ready"},
			{Type: "Progressing", Status: metav1.ConditionFalse, ObservedGeneration: 3, LastTransitionTime: t, Reason: "Stable", Message: "rollout complete"},
		}},
	}
}

// wireWidgets returns n Widgets as JSON, the form the API server serves
// custom resources in.
func wireWidgets(n int) [][]byte {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([][]byte, n)
	for i := range out {
		b, err := utiljson.Marshal(newWidget(r, i))
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

func decodeWidgetJSON(b []byte) *Widget {
	w := &Widget{}
	if err := utiljson.Unmarshal(b, w); err != nil {
		panic(err)
	}
	return w
}

func decodeWidgetCBOR(b []byte) *Widget {
	w := &Widget{}
	if err := direct.Unmarshal(b, w); err != nil {
		panic(err)
	}
	return w
}

func decodeUnstructured(b []byte) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		panic(err)
	}
	return u
}

func decodeUnstructuredCBOR(b []byte) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := direct.Unmarshal(b, &u.Object); err != nil {
		panic(err)
	}
	return u
}

// intern replaces the strings that repeat across objects with one shared
// copy each: namespace, label and annotation keys, label values, owner
// references, and the keys of data maps.
func intern(s string) string { return unique.Make(s).Value() }

func internMap(m map[string]string, values bool) {
	for k, v := range m {
		ik := intern(k)
		if values {
			v = intern(v)
		}
		delete(m, k)
		m[ik] = v
	}
}

func internMeta(m *metav1.ObjectMeta) {
	m.Namespace = intern(m.Namespace)
	internMap(m.Labels, true)
	internMap(m.Annotations, false)
	for i := range m.OwnerReferences {
		o := &m.OwnerReferences[i]
		o.APIVersion, o.Kind, o.Name, o.UID = intern(o.APIVersion), intern(o.Kind), intern(o.Name), types.UID(intern(string(o.UID)))
	}
}

// compactEntry is what an encoded cache keeps per object: the bytes and
// the resourceVersion (to tell a relist's unchanged objects without
// decoding). Index values live in the indexes, which every form has.
type compactEntry struct {
	data []byte
	rv   string
}

// retained returns the heap that build's result keeps per object after GC.
func retained(n int, build func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// namespaceIndex is the index every cache has, whatever it stores.
func namespaceIndex(keys []string, nss []string) map[string]map[string]struct{} {
	ix := make(map[string]map[string]struct{})
	for i, k := range keys {
		set := ix[nss[i]]
		if set == nil {
			set = make(map[string]struct{})
			ix[nss[i]] = set
		}
		set[k] = struct{}{}
	}
	return ix
}

type form[T any] struct {
	decode func([]byte) T
	meta   func(T) *metav1.ObjectMeta
	// encode re-encodes a decoded object (what an encoded cache stores);
	// nil keeps the wire bytes.
	encode func(T) []byte
	// noIntern: interning does not apply (meta returns a copy).
	noIntern bool
}

// heapForms measures, for one kind, the heap per cached object of each
// candidate form, and reports the bytes on the wire.
func heapForms[T any](b *testing.B, wire [][]byte, f form[T]) {
	n := len(wire)
	var wireBytes int
	for _, w := range wire {
		wireBytes += len(w)
	}
	keysAndNS := func() ([]string, []string, []T) {
		objs := make([]T, n)
		keys, nss := make([]string, n), make([]string, n)
		for i, w := range wire {
			objs[i] = f.decode(w)
			m := f.meta(objs[i])
			keys[i], nss[i] = m.Namespace+"/"+m.Name, m.Namespace
		}
		return keys, nss, objs
	}
	shared := func(internStrings bool) func() any {
		return func() any {
			keys, nss, objs := keysAndNS()
			items := make(map[string]T, n)
			for i, o := range objs {
				if internStrings {
					internMeta(f.meta(o))
					nss[i] = f.meta(o).Namespace
				}
				items[keys[i]] = o
			}
			return []any{items, namespaceIndex(keys, nss)}
		}
	}
	encoded := func(recent int) func() any {
		return func() any {
			keys, nss, objs := keysAndNS()
			items := make(map[string]compactEntry, n)
			for i, o := range objs {
				data := wire[i]
				if f.encode != nil {
					data = f.encode(o)
				} else {
					data = append([]byte(nil), data...) // the cache's own copy
				}
				items[keys[i]] = compactEntry{data: data, rv: f.meta(o).ResourceVersion}
			}
			hot := make(map[string]T, recent)
			for i := range recent {
				hot[keys[i]] = objs[i]
			}
			clear(objs)
			return []any{items, hot, namespaceIndex(keys, nss)}
		}
	}
	cases := []struct {
		name  string
		build func() any
	}{
		{"a-decoded-shared", shared(false)},
		{"b-decoded-interned", shared(true)},
		{"c-encoded", encoded(0)},
		{"d-encoded+256-decoded", encoded(256)},
	}
	for _, c := range cases {
		if f.noIntern && c.name == "b-decoded-interned" {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = retained(n, c.build)
			}
			b.ReportMetric(per, "B/object")
			b.ReportMetric(float64(wireBytes)/float64(n), "wireB/object")
		})
	}
}

// BenchmarkCompactHeap: heap kept per cached object, 10,000 objects, for
// each candidate form (issue 24, step 1).
func BenchmarkCompactHeap(b *testing.B) {
	b.Run("kind=ConfigMap/wire=protobuf", func(b *testing.B) {
		heapForms(b, wireConfigMaps(compactObjects), form[*corev1.ConfigMap]{
			decode: decodeConfigMap,
			meta:   func(c *corev1.ConfigMap) *metav1.ObjectMeta { return &c.ObjectMeta },
			encode: func(c *corev1.ConfigMap) []byte { b, _ := c.Marshal(); return b },
		})
	})
	widgets := wireWidgets(compactObjects)
	b.Run("kind=Widget/wire=json/store=json", func(b *testing.B) {
		heapForms(b, widgets, form[*Widget]{
			decode: decodeWidgetJSON,
			meta:   func(w *Widget) *metav1.ObjectMeta { return &w.ObjectMeta },
		})
	})
	b.Run("kind=Widget/wire=json/store=cbor", func(b *testing.B) {
		heapForms(b, widgets, form[*Widget]{
			decode: decodeWidgetJSON,
			meta:   func(w *Widget) *metav1.ObjectMeta { return &w.ObjectMeta },
			encode: func(w *Widget) []byte { b, _ := direct.Marshal(w); return b },
		})
	})
	uMeta := func(u *unstructured.Unstructured) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName(), ResourceVersion: u.GetResourceVersion()}
	}
	b.Run("kind=Widget/form=unstructured/store=json", func(b *testing.B) {
		heapForms(b, widgets, form[*unstructured.Unstructured]{decode: decodeUnstructured, meta: uMeta, noIntern: true})
	})
	b.Run("kind=Widget/form=unstructured/store=cbor", func(b *testing.B) {
		heapForms(b, widgets, form[*unstructured.Unstructured]{decode: decodeUnstructured, meta: uMeta, noIntern: true,
			encode: func(u *unstructured.Unstructured) []byte { b, _ := direct.Marshal(u.Object); return b }})
	})
}

// BenchmarkCompactRead: the cost of reading one object, and 100 objects of
// a namespace, from each form: a shared decoded object as is, a shared
// decoded object deep-copied (controller-runtime's cached client does that
// by default), and an encoded object decoded for the caller. Encode is the
// cost an encoded cache adds per insert when it re-encodes.
func BenchmarkCompactRead(b *testing.B) {
	cms := wireConfigMaps(1000)
	widgets := wireWidgets(1000)
	cbors := make([][]byte, len(widgets))
	for i, w := range widgets {
		cbors[i], _ = direct.Marshal(decodeWidgetJSON(w))
	}
	readRows(b, "kind=ConfigMap", cms, decodeConfigMap, func(c *corev1.ConfigMap) []byte { b, _ := c.Marshal(); return b },
		map[string]func([]byte) *corev1.ConfigMap{"protobuf": decodeConfigMap})
	readRows(b, "kind=Widget", widgets, decodeWidgetJSON, func(w *Widget) []byte { b, _ := direct.Marshal(w); return b },
		map[string]func([]byte) *Widget{"json": decodeWidgetJSON})
	readRows(b, "kind=Widget", cbors, decodeWidgetCBOR, nil,
		map[string]func([]byte) *Widget{"cbor": decodeWidgetCBOR})
	us := make([]*unstructured.Unstructured, len(widgets))
	for i, w := range widgets {
		us[i] = decodeUnstructured(w)
	}
	b.Run("kind=Widget/form=unstructured/get=deepcopy", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = us[i%len(us)].DeepCopy()
		}
	})
	b.Run("kind=Widget/form=unstructured/get=decode-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = decodeUnstructured(widgets[i%len(widgets)])
		}
	})
	ucbor := make([][]byte, len(us))
	for i, u := range us {
		ucbor[i], _ = direct.Marshal(u.Object)
	}
	b.Run("kind=Widget/form=unstructured/encode-cbor", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, _ = direct.Marshal(us[i%len(us)].Object)
		}
	})
	b.Run("kind=Widget/form=unstructured/encode-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, _ = us[i%len(us)].MarshalJSON()
		}
	})
	b.Run("kind=Widget/form=unstructured/get=decode-cbor", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = decodeUnstructuredCBOR(ucbor[i%len(ucbor)])
		}
	})
}

type deepCopier[T any] interface{ DeepCopy() T }

// listSink keeps the lists the read benchmarks build from being optimized away.
var listSink any

func readRows[T deepCopier[T]](b *testing.B, kind string, wire [][]byte, decode func([]byte) T, encode func(T) []byte, decoders map[string]func([]byte) T) {
	objs := make([]T, len(wire))
	for i, w := range wire {
		objs[i] = decode(w)
	}
	if encode != nil {
		b.Run(kind+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = encode(objs[i%len(objs)])
			}
		})
		b.Run(kind+"/get=shared", func(b *testing.B) {
			b.ReportAllocs()
			var sink T
			for i := 0; b.Loop(); i++ {
				sink = objs[i%len(objs)]
			}
			_ = sink
		})
		b.Run(kind+"/get=deepcopy", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = objs[i%len(objs)].DeepCopy()
			}
		})
		b.Run(kind+"/list100=deepcopy", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out := make([]T, 0, 100)
				for j := range 100 {
					out = append(out, objs[(i+j)%len(objs)].DeepCopy())
				}
				listSink = out
			}
		})
	}
	for name, dec := range decoders {
		b.Run(kind+"/get=decode-"+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = dec(wire[i%len(wire)])
			}
		})
		b.Run(kind+"/list100=decode-"+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out := make([]T, 0, 100)
				for j := range 100 {
					out = append(out, dec(wire[(i+j)%len(wire)]))
				}
				listSink = out
			}
		})
	}
}
