package bench

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/tools/cache"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/fieldcodec"
)

// The benchmarks in this file compare the forms a compact cache can keep
// a typed custom resource in (issue 24): CBOR, and fields (package
// internal/fieldcodec), for the e2e's Widget and for a bigger kind.

// e2eWidgets returns n v1alpha1.Widgets as the e2e's informers hold them:
// created with the e2e's data keys and payload and label, stamped by the
// API server, annotated by the load generator and the controller, without
// managedFields (steady drops them by default), decoded from JSON.
func e2eWidgets(n int) []*v1alpha1.Widget {
	r := rand.New(rand.NewPCG(5, 6))
	filler := strings.Repeat("x", 256) // bench/cmd/e2e's -payload default
	out := make([]*v1alpha1.Widget, n)
	for i := range out {
		w := e2e.KindCR.NewObject("bench-e2e", fmt.Sprintf("obj-%05d", i), map[string]string{e2e.ValueKey: strconv.Itoa(i % 100), "filler": filler}).(*v1alpha1.Widget)
		w.TypeMeta = metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Widget"}
		w.UID, w.ResourceVersion, w.Generation = types.UID(fakeUUID(r)), strconv.Itoa(2_000_000+i), 1+int64(i%5)
		w.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 24, 10, 0, i%60, 0, time.UTC))
		w.Annotations = map[string]string{
			e2e.WrittenAnnotation:  strconv.FormatInt(1_795_000_000_000_000_000+int64(i), 10),
			e2e.ObservedAnnotation: "run-1/" + strconv.Itoa(i%100),
		}
		w.Status.ObservedGeneration = w.Generation
		out[i] = fromJSON(w)
	}
	return out
}

// fromJSON returns obj as decoded from its JSON, the form the API server
// serves custom resources in.
func fromJSON[T any](obj *T) *T {
	b, err := utiljson.Marshal(obj)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := utiljson.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// Database is a bigger custom resource as kubebuilder users write them:
// nested structs, slices of structs, quantities, int-or-strings,
// conditions.
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DatabaseSpec   `json:"spec,omitempty"`
	Status            DatabaseStatus `json:"status,omitempty"`
}

type DatabaseSpec struct {
	Engine    string                      `json:"engine"`
	Version   string                      `json:"version"`
	Replicas  *int32                      `json:"replicas,omitempty"`
	Storage   DatabaseStorage             `json:"storage"`
	Backup    *DatabaseBackup             `json:"backup,omitempty"`
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	Ports     []DatabasePort              `json:"ports,omitempty"`
	Env       []corev1.EnvVar             `json:"env,omitempty"`
	Users     []DatabaseUser              `json:"users,omitempty"`
	Paused    bool                        `json:"paused,omitempty"`
}

type DatabaseStorage struct {
	Size         resource.Quantity `json:"size"`
	StorageClass *string           `json:"storageClass,omitempty"`
}

type DatabaseBackup struct {
	Schedule  string           `json:"schedule"`
	Retention int32            `json:"retention,omitempty"`
	Target    *metav1.Duration `json:"target,omitempty"`
}

type DatabasePort struct {
	Name       string             `json:"name"`
	Port       int32              `json:"port"`
	TargetPort intstr.IntOrString `json:"targetPort,omitempty"`
}

type DatabaseUser struct {
	Name      string   `json:"name"`
	Databases []string `json:"databases,omitempty"`
	SecretRef string   `json:"secretRef"`
}

type DatabaseStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Phase              string             `json:"phase,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	Endpoints          []string           `json:"endpoints,omitempty"`
	LastBackup         *metav1.Time       `json:"lastBackup,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

func (d *Database) DeepCopyObject() k8sruntime.Object {
	b, _ := utiljson.Marshal(d) // benchmarks only: no generated deepcopy
	out := &Database{}
	_ = utiljson.Unmarshal(b, out)
	return out
}

func databases(n int) []*Database {
	r := rand.New(rand.NewPCG(7, 8))
	out := make([]*Database, n)
	for i := range out {
		meta := realisticMeta(r, i)
		meta.Generation = 4
		t := metav1.NewTime(time.Date(2026, 11, 2, 0, 0, i%60, 0, time.UTC))
		d := &Database{
			TypeMeta:   metav1.TypeMeta{APIVersion: "db.example.com/v1", Kind: "Database"},
			ObjectMeta: meta,
			Spec: DatabaseSpec{
				Engine: "postgres", Version: fmt.Sprintf("16.%d", i%4), Replicas: ptr(int32(3)),
				Storage: DatabaseStorage{Size: resource.MustParse(fmt.Sprintf("%dGi", 10+i%90)), StorageClass: ptr("fast-ssd")},
				Backup:  &DatabaseBackup{Schedule: "0 3 * * *", Retention: 7, Target: &metav1.Duration{Duration: time.Hour}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("2Gi")},
				},
				Ports: []DatabasePort{{Name: "postgres", Port: 5432, TargetPort: intstr.FromString("pg")}, {Name: "metrics", Port: 9187, TargetPort: intstr.FromInt32(9187)}},
				Env:   []corev1.EnvVar{{Name: "PGDATA", Value: "/var/lib/postgresql/data"}, {Name: "TZ", Value: "UTC"}},
				Users: []DatabaseUser{{Name: "app", Databases: []string{"app", "app_audit"}, SecretRef: fmt.Sprintf("db-%d-app", i)}, {Name: "readonly", SecretRef: fmt.Sprintf("db-%d-ro", i)}},
			},
			Status: DatabaseStatus{ObservedGeneration: 4, Phase: "Running", ReadyReplicas: 3,
				Endpoints:  []string{fmt.Sprintf("db-%d-rw.team-%d-prod.svc:5432", i, i%10), fmt.Sprintf("db-%d-ro.team-%d-prod.svc:5432", i, i%10)},
				LastBackup: &t,
				Conditions: []metav1.Condition{
					{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 4, LastTransitionTime: t, Reason: "Reconciled", Message: "all replicas are ready"},
					{Type: "BackupSucceeded", Status: metav1.ConditionTrue, ObservedGeneration: 4, LastTransitionTime: t, Reason: "Completed", Message: "last backup completed in 42s"},
					{Type: "Degraded", Status: metav1.ConditionFalse, ObservedGeneration: 4, LastTransitionTime: t, Reason: "AsExpected", Message: ""},
				}},
		}
		out[i] = fromJSON(d)
	}
	return out
}

// codecForm is one way to encode objects of *E.
type codecForm[E any] struct {
	name   string
	encode func(*E) ([]byte, error)
	decode func([]byte) (*E, error)
}

func codecForms[E any](b *testing.B) []codecForm[E] {
	fc, err := fieldcodec.For[*E]()
	if err != nil {
		b.Fatal(err)
	}
	return []codecForm[E]{
		{"cbor", func(o *E) ([]byte, error) { return direct.Marshal(o) },
			func(data []byte) (*E, error) { o := new(E); return o, direct.Unmarshal(data, o) }},
		{"fields", fc.Encode, fc.Decode},
	}
}

// BenchmarkCompactCodec: bytes per cached object, encode and decode time,
// of each form a compact cache could keep a typed custom resource in.
func BenchmarkCompactCodec(b *testing.B) {
	widgets := e2eWidgets(1000)
	codecRows(b, "kind=Widget", widgets)
	b.Run("kind=Widget/op=deepcopy", func(b *testing.B) { // what a read of a recent object costs
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = widgets[i%len(widgets)].DeepCopy()
		}
	})
	codecRows(b, "kind=Database", databases(1000))
}

func codecRows[E any](b *testing.B, kind string, objs []*E) {
	for _, f := range codecForms[E](b) {
		encoded := make([][]byte, len(objs))
		var total int
		for i, o := range objs {
			var err error
			if encoded[i], err = f.encode(o); err != nil {
				b.Fatal(err)
			}
			total += len(encoded[i])
		}
		if got, err := f.decode(encoded[0]); err != nil || !reflect.DeepEqual(got, objs[0]) {
			b.Logf("%s/form=%s: the decoded object differs from the one encoded by DeepEqual (err %v)", kind, f.name, err)
		}
		perObject := float64(total) / float64(len(objs))
		b.Run(kind+"/form="+f.name+"/op=encode", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := f.encode(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perObject, "bytes/object")
		})
		b.Run(kind+"/form="+f.name+"/op=decode", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := f.decode(encoded[i%len(encoded)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perObject, "bytes/object")
		})
	}
}

// BenchmarkCompactCacheHeap: the heap a cache keeps per object (the
// objects included) after a list of 10,000 e2e Widgets decoded from JSON:
// client-go's indexer with the namespace index (what controller-runtime's
// informers keep), steady's shared cache, and steady's compact cache.
func BenchmarkCompactCacheHeap(b *testing.B) {
	objs := e2eWidgets(compactObjects)
	wire := make([][]byte, len(objs))
	for i, o := range objs {
		wire[i], _ = utiljson.Marshal(o)
	}
	objs = nil
	decodeList := func() []any {
		list := make([]any, len(wire))
		for i, w := range wire {
			o := &v1alpha1.Widget{}
			if err := utiljson.Unmarshal(w, o); err != nil {
				b.Fatal(err)
			}
			list[i] = o
		}
		return list
	}
	caches := []struct {
		name string
		new  func() cache.Indexer
	}{
		{"client-go", func() cache.Indexer {
			return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		}},
		{"steady-shared", func() cache.Indexer { return informer.NewCache[*v1alpha1.Widget]().Indexer() }},
		{"steady-compact", func() cache.Indexer {
			c, err := informer.NewCompactCache[*v1alpha1.Widget]()
			if err != nil {
				b.Fatal(err)
			}
			return c.Indexer()
		}},
	}
	for _, c := range caches {
		b.Run("kind=Widget/cache="+c.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = retained(compactObjects, func() any {
					ix := c.new()
					if err := ix.Replace(decodeList(), "1"); err != nil {
						b.Fatal(err)
					}
					return ix
				})
			}
			b.ReportMetric(per, "B/object")
		})
	}
}
