package informer

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/go-logr/logr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// creates records the objects of a handler's creates, by name.
type creates struct {
	mu   sync.Mutex
	objs map[string]*corev1.ConfigMap
}

func (c *creates) handler() HandlerFuncs[*corev1.ConfigMap] {
	c.objs = map[string]*corev1.ConfigMap{}
	return HandlerFuncs[*corev1.ConfigMap]{CreateFunc: func(e event.Create[*corev1.ConfigMap]) {
		c.mu.Lock()
		c.objs[e.Object.Name] = e.Object
		c.mu.Unlock()
	}}
}

func (c *creates) get() map[string]*corev1.ConfigMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.objs)
}

// With only MetadataOnly handlers, a compact cache's first list comes in
// with nothing but each object's metadata decoded: those handlers' initial
// creates carry the metadata alone, while the cache holds, and its reads
// return, the whole objects, and every later event carries them whole.
// With a handler that reads objects whole, or an index of one's own, the
// list is decoded whole as before.
func TestMetadataOnlyHandlersTakeTheFirstListUndecoded(t *testing.T) {
	cfg := protobufConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := testkit.Namespace(t, "metalist-")
	ctx := context.Background()
	const n = 20
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i), Labels: map[string]string{"i": fmt.Sprint(i)}},
			Data: map[string]string{"k": fmt.Sprint(i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		whole   bool // a handler without MetadataOnly too
		index   bool // an index of one's own
		partial bool // the metadata handler's initial creates lack data
	}{{"metadata handler", false, false, true}, {"and a whole one", true, false, false}, {"and an index", false, true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme), cluster.WithFastPaths(true))
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewFactory(cl)
			if err != nil {
				t.Fatal(err)
			}
			inf, err := For[*corev1.ConfigMap](f, ns, object.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			var meta, whole creates
			metaReg, err := inf.AddHandler(meta.handler(), MetadataOnly())
			if err != nil {
				t.Fatal(err)
			}
			regs := []*Registration{metaReg}
			if tc.whole {
				reg, err := inf.AddHandler(whole.handler())
				if err != nil {
					t.Fatal(err)
				}
				regs = append(regs, reg)
			}
			if tc.index {
				if err := inf.Cache().AddIndex("k", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Data["k"]}, nil }); err != nil {
					t.Fatal(err)
				}
			}
			runCtx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); _ = f.Start(runCtx) }()
			defer func() { cancel(); <-done }()
			syncers := []Syncer{inf}
			for _, r := range regs {
				syncers = append(syncers, r)
			}
			if err := WaitForCacheSync(ctx, syncers...); err != nil {
				t.Fatal(err)
			}

			got := meta.get()
			if len(got) != n {
				t.Fatalf("the metadata handler had %d creates, want %d", len(got), n)
			}
			for name, cm := range got {
				cached, ok := inf.Cache().Get(ns, name)
				if !ok || cached.Data["k"] == "" {
					t.Fatalf("%s: cached %#v, %v; want it whole", name, cached, ok)
				}
				if cm.Labels["i"] != cached.Labels["i"] || cm.UID != cached.UID || cm.ResourceVersion != cached.ResourceVersion {
					t.Fatalf("%s: the create's metadata %#v, the cache's %#v", name, cm.ObjectMeta, cached.ObjectMeta)
				}
				if (cm.Data == nil) != tc.partial {
					t.Fatalf("%s: the create's data is %v; want it absent: %v", name, cm.Data, tc.partial)
				}
			}
			if tc.whole {
				for name, cm := range whole.get() {
					if cm.Data["k"] == "" {
						t.Fatalf("%s: the whole handler got %#v", name, cm)
					}
				}
			}
			if tc.index {
				if keys, err := inf.Cache().IndexKeys("k", "7"); err != nil || len(keys) != 1 || keys[0] != ns+"/cm-7" {
					t.Fatalf("index k=7: %v, %v; want [%s/cm-7]", keys, err, ns)
				}
			}
			c := inf.cache
			c.mu.RLock()
			left := c.compact.wire.Len()
			c.mu.RUnlock()
			if left != 0 {
				t.Fatalf("%d encodings left untaken", left)
			}
		})
	}
}

// partialConfigMaps streams the list of ns's ConfigMaps from the test
// server with only their metadata decoded, as a compact cache's first list
// comes in, and returns them with the table that holds the rest.
func partialConfigMaps(t *testing.T, ns string) ([]*corev1.ConfigMap, *protowatch.Encodings) {
	t.Helper()
	lw := wireLW(t, protobufConfig(t), wireCases[0], ns)
	table := protowatch.NewEncodings()
	lw.wire.kind.KeepEncodings(table)
	yes := func() bool { return true }
	lw.wire.listMetadata.Store(&yes)
	send := true
	w, err := lw.Watch(context.Background(), metav1.ListOptions{SendInitialEvents: &send, AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.ConfigMap
	for _, ev := range collect(t, w, func(ev watch.Event) bool { return ev.Type == watch.Bookmark }) {
		if ev.Type == watch.Added {
			out = append(out, ev.Object.(*corev1.ConfigMap))
		}
	}
	return out, table
}

// A compact cache stores a partly decoded object's bytes as they came,
// and decodes it whole where something needs it whole: an index of one's
// own, a replaced state, a recent object; a listener without MetadataOnly
// decodes it from the bytes, one with it gets it as it is.
func TestCompactCacheDecodesPartialObjectsWhereNeeded(t *testing.T) {
	cs := kubernetes.NewForConfigOrDie(protobufConfig(t))
	ns := testkit.Namespace(t, "partial-")
	ctx := context.Background()
	for i := range 3 {
		if err := wireCases[0].create(ctx, cs, ns, fmt.Sprint("cm-", i), i); err != nil {
			t.Fatal(err)
		}
	}
	objs, table := partialConfigMaps(t, ns)
	if len(objs) != 3 || objs[0].Data != nil || table.Len() != 3 {
		t.Fatalf("streamed %d objects, the first %#v, %d encodings kept; want 3 partial ones and their bytes", len(objs), objs[0], table.Len())
	}
	c, err := NewCompactCache[*corev1.ConfigMap]()
	if err != nil {
		t.Fatal(err)
	}
	c.compact.wire = table
	c.mu.Lock()
	defer c.mu.Unlock()

	// No index of one's own, not recent, new: stored as it came.
	old, err := c.put(ns+"/cm-0", objs[0], false)
	if err != nil || !old.partial || !event.IsNil(old.whole) || old.stored == nil {
		t.Fatalf("put(cm-0) = %+v, %v; want it stored partial", old, err)
	}
	if got, err := c.compact.codec.decode(c.compact.items[ns+"/cm-0"]); err != nil || got.Data["k"] != "0" {
		t.Fatalf("cm-0 stored as %#v, %v; want it whole", got, err)
	}
	// Recent: decoded whole.
	old, err = c.put(ns+"/cm-1", objs[1], true)
	if err != nil || old.partial || old.whole == nil || old.whole.Data["k"] != "1" {
		t.Fatalf("put(cm-1, recent) = %+v, %v; want it decoded whole", old, err)
	}
	// An index of one's own: decoded whole before it is indexed.
	c.mu.Unlock() // AddIndex takes it
	if err := c.AddIndex("k", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Data["k"]}, nil }); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	old, err = c.put(ns+"/cm-2", objs[2], false)
	if err != nil || old.partial || old.whole == nil {
		t.Fatalf("put(cm-2, indexed) = %+v, %v; want it decoded whole", old, err)
	}
	if _, ok := c.indexes["k"].keysByVal["2"][ns+"/cm-2"]; !ok {
		t.Fatalf("cm-2 indexed as %v; want under its data", c.indexes["k"].keysByVal)
	}
	if n := table.Len(); n != 0 {
		t.Fatalf("%d encodings left", n)
	}

	// Listeners: one with MetadataOnly gets the partial object, one
	// without decodes the bytes.
	ch := encodedChange[*corev1.ConfigMap]{change: change[*corev1.ConfigMap]{key: ns + "/cm-0",
		n: notification[*corev1.ConfigMap]{kind: kindCreate, initial: true, obj: objs[0], partial: true}}, data: c.compact.items[ns+"/cm-0"]}
	for _, metadataOnly := range []bool{true, false} {
		var got *corev1.ConfigMap
		l := newListener[*corev1.ConfigMap](HandlerFuncs[*corev1.ConfigMap]{CreateFunc: func(e event.Create[*corev1.ConfigMap]) { got = e.Object }}, logr.Discard())
		l.decode, l.metadataOnly = c.compact.codec.decode, metadataOnly
		l.deliverEncoded(&ch)
		if metadataOnly && got != objs[0] || !metadataOnly && (got == nil || got.Data["k"] != "0") {
			t.Fatalf("MetadataOnly %v: delivered %#v", metadataOnly, got)
		}
	}
}
