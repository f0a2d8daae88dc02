package informer_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// Compact caches are a fast path: a factory on a cluster without fast
// paths (cluster.WithFastPaths(false), STEADY_FAST_PATHS=off, or
// FastCompact alone turned off) keeps
// decoded objects, and its caches' reads (Get, List, ByIndex, and listers
// over Indexer) return deep copies, so that what a reader gets is still
// its own, as a compact cache's reads are: changing it changes nothing
// cached. WithCompact given to the factory is honoured as given, and
// KindOptions.Shared still shares; with fast paths on nothing changes.
func TestFactoryWithoutFastPaths(t *testing.T) {
	env, cs := testkit.Env(t), testkit.Clientset(t)
	ns := testkit.Namespace(t, "fastpaths-")
	ctx := context.Background()
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"app": "a"}},
			Data: map[string]string{"k": fmt.Sprint(i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	live, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*corev1.ConfigMap{}
	for i := range live.Items {
		cm := &live.Items[i]
		cm.ManagedFields = nil // the factory drops them
		want[cm.Name] = cm
	}

	for _, tc := range []struct {
		name        string
		env         string
		copts       []cluster.Option
		fopts       []informer.FactoryOption
		wantCompact bool
		wantOwned   bool // reads return objects of the reader's own
	}{
		{name: "fast paths on", wantCompact: true, wantOwned: true},
		{name: "WithFastPaths(false)", copts: []cluster.Option{cluster.WithFastPaths(false)}, wantOwned: true},
		{name: "environment", env: "off", wantOwned: true},
		{name: "environment, WithFastPaths(true)", env: "off", copts: []cluster.Option{cluster.WithFastPaths(true)}, wantCompact: true, wantOwned: true},
		{name: "environment, off:compact", env: "off:compact", wantOwned: true},
		{name: "environment, off:http1,protobuf", env: "off:http1,protobuf", wantCompact: true, wantOwned: true},
		{name: "WithoutFastPaths(FastCompact)", copts: []cluster.Option{cluster.WithoutFastPaths(cluster.FastCompact)}, wantOwned: true},
		{name: "WithFastPaths(false), WithCompact(true)", copts: []cluster.Option{cluster.WithFastPaths(false)},
			fopts: []informer.FactoryOption{informer.WithCompact(true)}, wantCompact: true, wantOwned: true},
		{name: "WithFastPaths(false), WithCompact(false)", copts: []cluster.Option{cluster.WithFastPaths(false)},
			fopts: []informer.FactoryOption{informer.WithCompact(false)}},
		{name: "WithFastPaths(false), KindOptions.Shared", copts: []cluster.Option{cluster.WithFastPaths(false)},
			fopts: []informer.FactoryOption{informer.WithKind(schema.GroupKind{Kind: "ConfigMap"}, informer.KindOptions{Shared: true})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cluster.FastPathsEnv, tc.env)
			c, err := cluster.New(env.Config, append(tc.copts, cluster.WithScheme(clientgoscheme.Scheme))...)
			if err != nil {
				t.Fatal(err)
			}
			f, err := informer.NewFactory(c, tc.fopts...)
			if err != nil {
				t.Fatal(err)
			}
			inf, err := informer.For[*corev1.ConfigMap](f, ns, object.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			if err := inf.AddIndex("app", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Labels["app"]}, nil }); err != nil {
				t.Fatal(err)
			}
			if got := inf.Cache().Compact(); got != tc.wantCompact {
				t.Fatalf("Compact() = %v, want %v", got, tc.wantCompact)
			}
			runCtx, cancel := context.WithCancel(ctx)
			defer startFactory(f, runCtx)()
			defer cancel()
			syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
			defer syncCancel()
			if err := inf.WaitForSync(syncCtx); err != nil {
				t.Fatal(err)
			}
			cache := inf.Cache()
			reads := map[string]func() []*corev1.ConfigMap{
				"Get": func() []*corev1.ConfigMap {
					var out []*corev1.ConfigMap
					for name := range want {
						if cm, ok := cache.Get(ns, name); ok {
							out = append(out, cm)
						}
					}
					return out
				},
				"List": cache.List,
				"ByIndex app": func() []*corev1.ConfigMap {
					objs, err := cache.ByIndex("app", "a")
					if err != nil {
						t.Fatal(err)
					}
					return objs
				},
				"ByIndex namespace": func() []*corev1.ConfigMap {
					objs, err := cache.ByIndex(informer.NamespaceIndex, ns)
					if err != nil {
						t.Fatal(err)
					}
					return objs
				},
				"Indexer().GetByKey": func() []*corev1.ConfigMap {
					var out []*corev1.ConfigMap
					for _, cm := range want {
						obj, ok, err := cache.Indexer().GetByKey(object.Key(cm))
						if err != nil || !ok {
							t.Fatalf("Indexer().GetByKey(%s): %v, %v", object.Key(cm), ok, err)
						}
						out = append(out, obj.(*corev1.ConfigMap))
					}
					return out
				},
			}
			for read, fn := range reads {
				first := fn()
				if len(first) != len(want) {
					t.Fatalf("%s read %d objects, want %d", read, len(first), len(want))
				}
				for _, cm := range first {
					if !reflect.DeepEqual(cm, want[cm.Name]) {
						t.Fatalf("%s read\n%+v\nwant\n%+v", read, cm, want[cm.Name])
					}
				}
				if !tc.wantOwned {
					// Shared: the same objects each time, which the test
					// must not change.
					again := map[string]*corev1.ConfigMap{}
					for _, cm := range fn() {
						again[cm.Name] = cm
					}
					for _, cm := range first {
						if again[cm.Name] != cm {
							t.Errorf("%s of a shared cache returned a new %s", read, cm.Name)
						}
					}
					continue
				}
				for _, cm := range first {
					cm.Data["k"] = "changed by " + read
					cm.Labels["app"] = "changed"
				}
				for _, cm := range fn() {
					if !reflect.DeepEqual(cm, want[cm.Name]) {
						t.Errorf("after changing what %s returned, %s reads\n%+v\nwant\n%+v", read, read, cm, want[cm.Name])
					}
				}
			}
			for _, cm := range want {
				if got, ok := cache.Get(ns, cm.Name); !ok || !reflect.DeepEqual(got, cm) {
					t.Errorf("after the reads' objects were changed, the cache holds\n%+v\nwant\n%+v", got, cm)
				}
			}
			if objs, _ := cache.ByIndex("app", "a"); len(objs) != len(want) {
				t.Errorf("after the reads' objects were changed, index app holds %d objects under a, want %d", len(objs), len(want))
			}
		})
	}
}
