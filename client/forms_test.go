package client_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

var (
	configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	secretGVK    = corev1.SchemeGroupVersion.WithKind("Secret")
)

// startedFactory returns a factory of the test cluster made with opts,
// running until the test ends.
func startedFactory(t *testing.T, opts ...informer.FactoryOption) *informer.Factory {
	t.Helper()
	f, err := informer.NewFactory(mustCluster(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	startFactory(t, f, ctx, cancel)
	return f
}

// keys returns the sorted namespace/name keys of objs.
func keys[T object.Object](objs []T) string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, object.Key(o))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func createIn(t *testing.T, ns string, objs ...object.Object) {
	t.Helper()
	ctx, cs := context.Background(), testkit.Clientset(t)
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.ConfigMap:
			_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Secret:
			_, err = cs.CoreV1().Secrets(ns).Create(ctx, o, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"k": "v"}}
}

// sorted returns namespaces sorted, as a set's reads and errors name them.
func sorted(namespaces ...string) []string { return slices.Sorted(slices.Values(namespaces)) }

// A client over a cache of two namespaces of three lists both without
// InNamespace, and refuses the third, for Get and List alike, naming it
// and the set.
func TestNamespaceSetReads(t *testing.T) {
	ctx := context.Background()
	a, b, c := testkit.Namespace(t, "set-"), testkit.Namespace(t, "set-"), testkit.Namespace(t, "set-")
	createIn(t, a, configMap("x", nil), configMap("y", nil))
	createIn(t, b, configMap("x", nil))
	createIn(t, c, configMap("x", nil))
	f := startedFactory(t, informer.WithNamespaces(a, b))
	cms, err := client.For[*corev1.ConfigMap](f, "")
	if err != nil {
		t.Fatal(err)
	}
	all, err := cms.List(ctx)
	if want := fmt.Sprintf("%s/x,%s/y,%s/x", a, a, b); err != nil || keys(all) != strings.Join(sorted(strings.Split(want, ",")...), ",") {
		t.Fatalf("List() = %s, %v; want %s", keys(all), err, want)
	}
	inB, err := cms.List(ctx, client.InNamespace(b))
	if err != nil || keys(inB) != b+"/x" {
		t.Fatalf("List(InNamespace(b)) = %s, %v", keys(inB), err)
	}
	if got, err := cms.Get(ctx, a, "y"); err != nil || got.Name != "y" {
		t.Fatalf("Get(a, y) = %v, %v", got, err)
	}
	if _, err := cms.Get(ctx, b, "y"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get(b, y) = %v, want NotFound", err)
	}
	set := sorted(a, b)
	naming := func(err error) bool {
		return err != nil && !apierrors.IsNotFound(err) && strings.Contains(err.Error(), fmt.Sprintf("%q", c)) &&
			strings.Contains(err.Error(), fmt.Sprintf("%q, %q", set[0], set[1]))
	}
	if _, err := cms.List(ctx, client.InNamespace(c)); !naming(err) {
		t.Fatalf("List(InNamespace(c)): %v, want an error naming c and the set", err)
	}
	if _, err := cms.Get(ctx, c, "x"); !naming(err) {
		t.Fatalf("Get(c, x): %v, want an error naming c and the set", err)
	}
}

// An uncached kind's client reads the API server, within the factory's
// namespaces, and no informer is made for it: before the factory starts,
// and after.
func TestUncachedKindReadsTheAPIServer(t *testing.T) {
	ctx := context.Background()
	a, b, c := testkit.Namespace(t, "live-"), testkit.Namespace(t, "live-"), testkit.Namespace(t, "live-")
	for _, ns := range []string{a, b, c} {
		createIn(t, ns, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"ns": ns}}, StringData: map[string]string{"password": ns}})
	}
	f, err := informer.NewFactory(mustCluster(t), informer.WithNamespaces(a, b),
		informer.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Uncached: true}))
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := client.For[*corev1.Secret](f, "")
	if err != nil {
		t.Fatal(err)
	}
	if secrets.Informer() != nil {
		t.Fatal("an uncached kind's client has an informer")
	}
	// Not started: an uncached read has no cache to wait for.
	s, err := secrets.Get(ctx, a, "s")
	if err != nil || string(s.Data["password"]) != a {
		t.Fatalf("Get(a, s) = %v, %v", s, err)
	}
	list, err := secrets.List(ctx)
	if want := strings.Join(sorted(a+"/s", b+"/s"), ","); err != nil || keys(list) != want {
		t.Fatalf("List() = %s, %v; want %s", keys(list), err, want)
	}
	list, err = secrets.List(ctx, client.InNamespace(b), client.Matching(object.Selector{Labels: "ns=" + b}))
	if err != nil || keys(list) != b+"/s" {
		t.Fatalf("List(InNamespace(b), labels) = %s, %v", keys(list), err)
	}
	if _, err := secrets.Get(ctx, c, "s"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", c)) {
		t.Fatalf("Get outside the namespaces: %v, want an error naming %s", err, c)
	}
	if _, err := secrets.Get(ctx, a, "missing"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing Secret: %v, want NotFound", err)
	}
	if _, err := secrets.List(ctx, client.MatchingIndex("any", "x")); err == nil {
		t.Fatal("List by an index of an uncached kind succeeded")
	}
	if _, err := secrets.Modify(ctx, a, "s", func(s *corev1.Secret) error {
		s.Labels["seen"] = "yes"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if s, err := secrets.Get(ctx, a, "s"); err != nil || s.Labels["seen"] != "yes" {
		t.Fatalf("after Modify: %v, %v; a live read sees a write at once", s, err)
	}
	meta, err := client.ForMetadata(f, secretGVK, "")
	if err != nil || meta.Informer() != nil {
		t.Fatalf("ForMetadata of an uncached kind: informer %v, %v", meta.Informer(), err)
	}
	if list, err := meta.List(ctx); err != nil || len(list) != 2 {
		t.Fatalf("metadata List of an uncached kind = %s, %v", keys(list), err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	startFactory(t, f, runCtx, cancel)
	if _, err := secrets.Get(ctx, b, "s"); err != nil {
		t.Fatal(err)
	}
	if stats := f.Stats(); len(stats) != 0 {
		t.Fatalf("the factory runs informers %+v for an uncached kind", stats)
	}
}

// An unstructured client reads from the cache and writes through the API
// server as a typed one does: here on ConfigMaps and on a custom resource
// with a status subresource, which has no Go type.
func TestUnstructuredClient(t *testing.T) {
	ctx := context.Background()
	ns := testkit.Namespace(t, "unstructured-")
	f := startedFactory(t)
	cms, err := client.ForUnstructured(f, configMapGVK, ns)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a", "namespace": ns, "labels": map[string]any{"tier": "web"}},
		"data":     map[string]any{"color": "red"},
	}}
	created, err := cms.Create(ctx, obj) // no apiVersion and kind: the client's
	if err != nil {
		t.Fatal(err)
	}
	upd := cachedAt(t, cms, ns, "a", created.GetResourceVersion()).DeepCopy()
	if err := unstructured.SetNestedField(upd.Object, "blue", "data", "color"); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	patched, err := cms.Patch(ctx, ns, "a", types.MergePatchType, []byte(`{"data":{"size":"xl"}}`))
	if err != nil {
		t.Fatal(err)
	}
	modified, err := cms.Modify(ctx, ns, "a", func(u *unstructured.Unstructured) error {
		return unstructured.SetNestedField(u.Object, "yes", "data", "modified")
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(modified.Object, "data")
	if want := map[string]string{"color": "blue", "size": "xl", "modified": "yes"}; fmt.Sprint(data) != fmt.Sprint(want) || modified.GetResourceVersion() == patched.GetResourceVersion() {
		t.Fatalf("after Update, Patch and Modify: data %v, want %v", data, want)
	}
	cachedAt(t, cms, ns, "a", modified.GetResourceVersion())
	if list, err := cms.List(ctx, client.Matching(object.Selector{Labels: "tier=web"})); err != nil || keys(list) != ns+"/a" {
		t.Fatalf("List = %s, %v", keys(list), err)
	}
	if list, err := cms.Live().List(ctx, client.InNamespace(ns)); err != nil || keys(list) != ns+"/a" {
		t.Fatalf("Live().List = %s, %v", keys(list), err)
	}
	wrong := &unstructured.Unstructured{}
	wrong.SetGroupVersionKind(secretGVK)
	wrong.SetNamespace(ns)
	wrong.SetName("b")
	if _, err := cms.Create(ctx, wrong); err == nil || !strings.Contains(err.Error(), "Secret") {
		t.Fatalf("Create of a Secret through a ConfigMap client: %v, want an error naming both kinds", err)
	}
	if err := cms.Delete(ctx, ns, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Live().Get(ctx, ns, "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("Live().Get after Delete: %v, want NotFound", err)
	}

	gadgets := gadgetClient(t, f, ns)
	g := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgetGVK.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": ns},
		"spec":     map[string]any{"size": int64(1)},
	}}
	if _, err = gadgets.Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := gadgets.Modify(ctx, ns, "g", func(u *unstructured.Unstructured) error {
		return unstructured.SetNestedField(u.Object, int64(2), "spec", "size")
	}); err != nil {
		t.Fatal(err)
	}
	withStatus, err := gadgets.ModifyStatus(ctx, ns, "g", func(u *unstructured.Unstructured) error {
		return unstructured.SetNestedField(u.Object, "ready", "status", "phase")
	})
	if err != nil {
		t.Fatal(err)
	}
	size, _, _ := unstructured.NestedInt64(withStatus.Object, "spec", "size")
	phase, _, _ := unstructured.NestedString(withStatus.Object, "status", "phase")
	if size != 2 || phase != "ready" {
		t.Fatalf("Gadget after Modify and ModifyStatus: size %d, phase %q", size, phase)
	}
	// Server-Side Apply of a custom resource without Go types.
	applied, err := gadgets.Apply(ctx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgetGVK.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": ns},
		"spec":     map[string]any{"color": "green"},
	}}), client.FieldManager("gadget-painter"))
	if err != nil {
		t.Fatal(err)
	}
	if color, _, _ := unstructured.NestedString(applied.Object, "spec", "color"); color != "green" {
		t.Fatalf("after Apply: spec.color %q", color)
	}
	cachedAt(t, gadgets, ns, "g", applied.GetResourceVersion())
	if err := gadgets.DeleteAllOf(ctx, ns, object.Selector{}); err != nil {
		t.Fatal(err)
	}
	if list, err := gadgets.Live().List(ctx, client.InNamespace(ns)); err != nil || len(list) != 0 {
		t.Fatalf("Gadgets after DeleteAllOf: %s, %v", keys(list), err)
	}
}

var gadgetGVK = schema.GroupVersionKind{Group: "client.steady.dev", Version: "v1", Kind: "Gadget"}

// gadgetClient installs the Gadget custom resource, with a status
// subresource, through an unstructured client of CustomResourceDefinitions,
// and returns an unstructured client of Gadgets in ns.
func gadgetClient(t *testing.T, f *informer.Factory, ns string) *client.Client[*unstructured.Unstructured] {
	t.Helper()
	ctx := context.Background()
	crds, err := client.ForUnstructured(f, schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, "")
	if err != nil {
		t.Fatal(err)
	}
	crd := testkit.GadgetCRD(gadgetGVK.Group)
	if _, err := crds.Create(ctx, crd); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	var gadgets *client.Client[*unstructured.Unstructured]
	testkit.Eventually(t, 30*time.Second, "Gadgets served", func() error {
		gadgets, err = client.ForUnstructured(f, gadgetGVK, ns)
		if err != nil {
			return err
		}
		_, err = gadgets.Live().List(ctx, client.InNamespace(ns))
		return err
	})
	return gadgets
}

// cachedAt waits until c's cache holds ns/name at resourceVersion rv.
func cachedAt[T object.Object](t *testing.T, c *client.Client[T], ns, name, rv string) T {
	t.Helper()
	var got T
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%s/%s cached at %s", ns, name, rv), func() error {
		var err error
		if got, err = c.Get(context.Background(), ns, name); err == nil && got.GetResourceVersion() != rv {
			err = fmt.Errorf("cached at %s", got.GetResourceVersion())
		}
		return err
	})
	return got
}

// A metadata-only client reads metadata from its cache and the API server,
// patches and deletes; writes of whole objects are errors naming the kind,
// and reach no server.
func TestMetadataClient(t *testing.T) {
	ctx, cs := context.Background(), testkit.Clientset(t)
	ns := testkit.Namespace(t, "metadata-")
	createIn(t, ns, configMap("a", map[string]string{"tier": "web"}), configMap("b", nil), configMap("c", map[string]string{"tier": "web"}))
	f := startedFactory(t)
	meta, err := client.ForMetadata(f, configMapGVK, ns)
	if err != nil {
		t.Fatal(err)
	}
	a, err := meta.Get(ctx, ns, "a")
	if err != nil || a.Name != "a" || a.Labels["tier"] != "web" {
		t.Fatalf("Get = %+v, %v", a, err)
	}
	if list, err := meta.List(ctx, client.Matching(object.Selector{Labels: "tier=web"})); err != nil || keys(list) != ns+"/a,"+ns+"/c" {
		t.Fatalf("List(tier=web) = %s, %v", keys(list), err)
	}
	if live, err := meta.Live().Get(ctx, ns, "b"); err != nil || live.Name != "b" || live.UID == "" {
		t.Fatalf("Live().Get = %+v, %v", live, err)
	}
	if list, err := meta.Live().List(ctx, client.InNamespace(ns)); err != nil || len(list) != 3 {
		t.Fatalf("Live().List = %s, %v", keys(list), err)
	}
	patched, err := meta.Patch(ctx, ns, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`))
	if err != nil || patched.Labels["patched"] != "yes" || patched.Labels["tier"] != "web" {
		t.Fatalf("Patch = %+v, %v", patched, err)
	}
	if full, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{}); err != nil || full.Data["k"] != "v" || full.Labels["patched"] != "yes" {
		t.Fatalf("after a metadata patch the object is %+v, %v; want its data kept", full, err)
	}

	labeled, err := meta.Apply(ctx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": ns, "labels": map[string]any{"applied": "yes"}},
	}}), client.FieldManager("labeler"))
	if err != nil || labeled.Labels["applied"] != "yes" {
		t.Fatalf("Apply of a label through the metadata client = %+v, %v", labeled, err)
	}

	d := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "d"}}
	whole := map[string]func() error{
		"create": func() error { _, err := meta.Create(ctx, d); return err },
		"update": func() error { _, err := meta.Update(ctx, a); return err },
		"modify": func() error {
			_, err := meta.Modify(ctx, ns, "b", func(m *metav1.PartialObjectMetadata) error { m.Labels = map[string]string{"x": "y"}; return nil })
			return err
		},
	}
	for verb, write := range whole {
		if err := write(); err == nil || !strings.Contains(err.Error(), "ConfigMap") || !strings.Contains(err.Error(), "metadata-only") {
			t.Errorf("%s through a metadata client: %v, want an error naming the kind", verb, err)
		}
	}
	if b, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "b", metav1.GetOptions{}); err != nil || len(b.Labels) != 0 || b.Data["k"] != "v" {
		t.Fatalf("a refused write changed b: %+v, %v", b, err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "d", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a refused Create made d: %v", err)
	}

	if err := meta.Delete(ctx, ns, "b"); err != nil {
		t.Fatal(err)
	}
	if err := meta.DeleteAllOf(ctx, ns, object.Selector{Labels: "tier=web"}); err != nil {
		t.Fatal(err)
	}
	if left, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
		t.Fatalf("after Delete and DeleteAllOf: %d left, %v", len(left.Items), err)
	}
}
