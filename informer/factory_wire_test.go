package informer

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/internal/testkit"
)

// wireCase is one kind the typed ListerWatcher decodes itself: how to
// make, change and list it through client-go's clientset.
type wireCase struct {
	gvk    schema.GroupVersionKind
	gvr    schema.GroupVersionResource
	new    func() protowatch.Object
	create func(ctx context.Context, cs kubernetes.Interface, ns, name string, i int) error
	update func(ctx context.Context, cs kubernetes.Interface, ns, name string, i int) error
	delete func(ctx context.Context, cs kubernetes.Interface, ns, name string) error
	watch  func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.ListOptions) (watch.Interface, error)
	list   func(ctx context.Context, cs kubernetes.Interface, ns string) (runtime.Object, error)
}

var wireCases = []wireCase{
	newWireCase(corev1.SchemeGroupVersion.WithResource("configmaps"),
		func(cs kubernetes.Interface, ns string) resourceClient[*corev1.ConfigMap, *corev1.ConfigMapList] {
			return cs.CoreV1().ConfigMaps(ns)
		},
		func(name string, i int, update bool) *corev1.ConfigMap {
			if update {
				return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": fmt.Sprint(i, "-updated")}}
			}
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"i": fmt.Sprint(i)}},
				Data: map[string]string{"k": fmt.Sprint(i)}, BinaryData: map[string][]byte{"b": {byte(i), 0, 255}}}
		}),
	newWireCase(corev1.SchemeGroupVersion.WithResource("secrets"),
		func(cs kubernetes.Interface, ns string) resourceClient[*corev1.Secret, *corev1.SecretList] {
			return cs.CoreV1().Secrets(ns)
		},
		func(name string, i int, update bool) *corev1.Secret {
			if update {
				return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name},
					Data: map[string][]byte{"key": {byte(i), 9}}, StringData: map[string]string{"s": "v"}}
			}
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string][]byte{"key": {byte(i), 1, 2, 3}}}
		}),
}

// resourceClient is what a clientset's client of one kind in a namespace
// has.
type resourceClient[T, L runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
	List(context.Context, metav1.ListOptions) (L, error)
}

// newWireCase returns the wireCase of kind T in gvr, whose objects obj
// makes: the one created, or with update the one it is updated to.
func newWireCase[T, L runtime.Object](gvr schema.GroupVersionResource, client func(kubernetes.Interface, string) resourceClient[T, L],
	obj func(name string, i int, update bool) T) wireCase {
	kind := reflect.TypeFor[T]().Elem().Name()
	return wireCase{
		gvk: gvr.GroupVersion().WithKind(kind), gvr: gvr, new: protoNew[T](),
		create: func(ctx context.Context, cs kubernetes.Interface, ns, name string, i int) error {
			_, err := client(cs, ns).Create(ctx, obj(name, i, false), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, cs kubernetes.Interface, ns, name string, i int) error {
			_, err := client(cs, ns).Update(ctx, obj(name, i, true), metav1.UpdateOptions{FieldManager: "updater"})
			return err
		},
		delete: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
			return client(cs, ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
		watch: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.ListOptions) (watch.Interface, error) {
			return client(cs, ns).Watch(ctx, opts)
		},
		list: func(ctx context.Context, cs kubernetes.Interface, ns string) (runtime.Object, error) {
			return client(cs, ns).List(ctx, metav1.ListOptions{})
		},
	}
}

// protobufConfig is the test server's config asking for protobuf, as
// operators configure it for the built-in kinds.
func protobufConfig(t *testing.T) *rest.Config {
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	return cfg
}

// wireLW returns the factory's typed ListerWatcher of c in ns, from cfg,
// on a cluster with fast paths, whatever STEADY_FAST_PATHS says: the
// ListerWatcher's own protobuf decoding is one.
func wireLW(t *testing.T, cfg *rest.Config, c wireCase, ns string, opts ...FactoryOption) *typedLW {
	t.Helper()
	cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme), cluster.WithFastPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFactory(cl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	lw, err := f.typedLW(c.gvk, c.gvr, ns, c.new)
	if err != nil {
		t.Fatal(err)
	}
	return lw.(*typedLW)
}

// collect returns the events of w until one satisfies last, or fails the
// test after 30 seconds.
func collect(t *testing.T, w watch.Interface, last func(watch.Event) bool) []watch.Event {
	t.Helper()
	defer w.Stop()
	var out []watch.Event
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d events", len(out))
			}
			out = append(out, ev)
			if last(ev) {
				return out
			}
		case <-timeout:
			t.Fatalf("watch: timed out after %d events", len(out))
		}
	}
}

func isDeleted(name string) func(watch.Event) bool {
	return func(ev watch.Event) bool {
		m, ok := ev.Object.(metav1.Object)
		return ev.Type == watch.Deleted && ok && m.GetName() == name
	}
}

func isInitialEnd(ev watch.Event) bool {
	m, ok := ev.Object.(metav1.Object)
	return ev.Type == watch.Bookmark && ok && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// withoutBookmarks leaves bookmarks out: the server sends them to each
// watch on its own schedule.
func withoutBookmarks(evs []watch.Event) []watch.Event {
	var out []watch.Event
	for _, ev := range evs {
		if ev.Type != watch.Bookmark {
			out = append(out, ev)
		}
	}
	return out
}

// dropManagedFields drops the managedFields of the events' objects, as a
// factory informer does.
func dropManagedFields(evs []watch.Event) []watch.Event {
	for _, ev := range evs {
		if m, ok := ev.Object.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
	}
	return evs
}

// The typed ListerWatcher of a protobuf config lists and watches (events,
// the streamed list and its bookmark, a 410) objects deep-equal to those
// client-go's clientset decodes; watch events without managedFields when
// the factory drops them.
func TestTypedLWDecodesAsClientGo(t *testing.T) {
	cfg := protobufConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	for _, c := range wireCases {
		for _, keep := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/keepManagedFields=%v", c.gvk.Kind, keep), func(t *testing.T) {
				ns := testkit.Namespace(t, "wire-")
				lw := wireLW(t, cfg, c, ns, WithKeepManagedFields(keep))
				if lw.wire == nil {
					t.Fatal("a protobuf config's typed ListerWatcher of a built-in kind decodes with client-go")
				}
				testWireCase(t, cs, c, ns, lw, keep)
				if lw.wire.refused.Load() {
					t.Fatal("the server refused to watch in protobuf")
				}
			})
		}
	}
}

// A config asking for JSON keeps client-go's decoding, and the same
// answers.
func TestTypedLWKeepsClientGoForJSON(t *testing.T) {
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.ContentType = runtime.ContentTypeJSON
	ns := testkit.Namespace(t, "wire-")
	lw := wireLW(t, cfg, wireCases[0], ns, WithKeepManagedFields(true))
	if lw.wire != nil {
		t.Fatal("a JSON config's typed ListerWatcher decodes protobuf itself")
	}
	testWireCase(t, kubernetes.NewForConfigOrDie(cfg), wireCases[0], ns, lw, true)
}

// A config naming no content type, as a kubeconfig loads, gets protobuf
// for the built-in kinds, as controller-runtime's does, and the same
// answers as client-go's.
func TestTypedLWSpeaksProtobufByDefault(t *testing.T) {
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.ContentType = ""
	ns := testkit.Namespace(t, "wire-")
	lw := wireLW(t, cfg, wireCases[0], ns, WithKeepManagedFields(true))
	if lw.wire == nil {
		t.Fatal("a default config's typed ListerWatcher of ConfigMaps does not decode protobuf itself")
	}
	testWireCase(t, kubernetes.NewForConfigOrDie(protobufConfig(t)), wireCases[0], ns, lw, true)
	if lw.wire.refused.Load() {
		t.Fatal("the server refused to watch in protobuf")
	}
}

// Only the Go types of built-in kinds, which have protobuf code, are
// decoded by steady.
func TestProtoNew(t *testing.T) {
	if protoNew[*unstructured.Unstructured]() != nil || protoNew[*metav1.PartialObjectMetadata]() == nil {
		t.Fatal("protoNew: Unstructured has protobuf code, or PartialObjectMetadata has none")
	}
	if cm, ok := protoNew[*corev1.ConfigMap]()().(*corev1.ConfigMap); !ok || cm == nil {
		t.Fatal("protoNew[*corev1.ConfigMap] does not make ConfigMaps")
	}
}

func testWireCase(t *testing.T, cs kubernetes.Interface, c wireCase, ns string, lw *typedLW, keep bool) {
	fix := func(evs []watch.Event) []watch.Event {
		if !keep {
			return dropManagedFields(evs)
		}
		return evs
	}
	ctx := context.Background()
	for i := range 3 {
		if err := c.create(ctx, cs, ns, fmt.Sprint("pre-", i), i); err != nil {
			t.Fatal(err)
		}
	}
	// The list.
	got, err := lw.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.list(ctx, cs, ns)
	if err != nil {
		t.Fatal(err)
	}
	// Lists keep managedFields either way (protowatch.List): the reflector
	// drops them.
	// Each list is as of the store's newest resourceVersion, which other
	// tests' writes move on.
	rv := want.(metav1.ListInterface).GetResourceVersion()
	got.(metav1.ListInterface).SetResourceVersion(rv)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("list differs from client-go's:\n got %v\nwant %v", got, want)
	}

	// The streamed list, up to its bookmark.
	streamed := metav1.ListOptions{SendInitialEvents: new(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}
	w, err := lw.Watch(ctx, streamed)
	if err != nil {
		t.Fatal(err)
	}
	gotEvs := collect(t, w, isInitialEnd)
	w, err = c.watch(ctx, cs, ns, streamed)
	if err != nil {
		t.Fatal(err)
	}
	wantEvs := fix(collect(t, w, isInitialEnd))
	if !reflect.DeepEqual(withoutBookmarks(gotEvs), withoutBookmarks(wantEvs)) || len(gotEvs) != len(wantEvs) {
		t.Fatalf("streamed list differs from client-go's:\n got %v\nwant %v", gotEvs, wantEvs)
	}

	// Events from the list's resourceVersion.
	from := metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}
	ours, err := lw.Watch(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := c.watch(ctx, cs, ns, from)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.create(ctx, cs, ns, "new", 7); err != nil {
		t.Fatal(err)
	}
	if err := c.update(ctx, cs, ns, "pre-1", 8); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pre-0", "new"} {
		if err := c.delete(ctx, cs, ns, name); err != nil {
			t.Fatal(err)
		}
	}
	gotEvs = withoutBookmarks(collect(t, ours, isDeleted("new")))
	wantEvs = fix(withoutBookmarks(collect(t, theirs, isDeleted("new"))))
	if len(gotEvs) != 4 || !reflect.DeepEqual(gotEvs, wantEvs) {
		t.Fatalf("events differ from client-go's:\n got %v\nwant %v", gotEvs, wantEvs)
	}

	// A resourceVersion compacted away: 410 Gone, in the same form (a watch
	// error or an ERROR event) as client-go gets it.
	if _, err := testkit.Env(t).Compact(ctx); err != nil {
		t.Fatal(err)
	}
	old := metav1.ListOptions{ResourceVersion: rv}
	ourEvs, ourErr := watchOnce(t, lw.Watch, old)
	theirEvs, theirErr := watchOnce(t, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return c.watch(ctx, cs, ns, o)
	}, old)
	// Their messages name the store's current resourceVersion, which other
	// tests move on: compare the form and the code.
	if (ourErr == nil) != (theirErr == nil) || len(ourEvs) != len(theirEvs) {
		t.Fatalf("watch from a compacted rv: %v %v; client-go's %v %v", ourErr, ourEvs, theirErr, theirEvs)
	}
	for _, w := range []struct {
		evs []watch.Event
		err error
	}{{ourEvs, ourErr}, {theirEvs, theirErr}} {
		err := w.err
		if len(w.evs) > 0 {
			err = apierrors.FromObject(w.evs[len(w.evs)-1].Object)
		}
		if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Fatalf("watch from a compacted rv: %v, want 410", err)
		}
	}
}

// watchOnce watches with opts and returns the watch's error or its events
// up to the first ERROR.
func watchOnce(t *testing.T, watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error), opts metav1.ListOptions) ([]watch.Event, error) {
	w, err := watchFn(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	return collect(t, w, func(ev watch.Event) bool { return ev.Type == watch.Error }), nil
}
