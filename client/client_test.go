package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// setup returns a client for config maps in a fresh namespace, its cache
// synced, running until the test ends.
func setup(t *testing.T) (*client.Client[*corev1.ConfigMap], string) {
	t.Helper()
	ns := testkit.Namespace(t, "client-")
	c, f := newClient[*corev1.ConfigMap](t, ns)
	if err := c.Informer().AddIndex("by-color", func(cm *corev1.ConfigMap) ([]string, error) {
		return []string{cm.Data["color"]}, nil
	}); err != nil {
		t.Fatal(err)
	}
	startSynced(t, f)
	return c, ns
}

// newClient returns a client for T in ns, over a factory of its own that
// is not started.
func newClient[T object.Object](t *testing.T, ns string) (*client.Client[T], *informer.Factory) {
	t.Helper()
	f, err := informer.NewFactory(mustCluster(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.For[T](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

// cached waits until the cache holds name with a resourceVersion of at least
// the write's, or (rv "") holds no name.
func cached(t *testing.T, c *client.Client[*corev1.ConfigMap], ns, name, rv string) *corev1.ConfigMap {
	t.Helper()
	var got *corev1.ConfigMap
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("the cache to hold %s/%s at rv %q", ns, name, rv), func() error {
		var err error
		got, err = c.Get(context.Background(), ns, name)
		switch {
		case rv == "" && apierrors.IsNotFound(err):
			got = nil
			return nil
		case rv == "" && err == nil:
			return fmt.Errorf("still cached at rv %s", got.ResourceVersion)
		case err == nil && got.ResourceVersion != rv:
			return fmt.Errorf("cached at rv %s", got.ResourceVersion)
		}
		return err
	})
	return got
}

func TestReadsFromCacheWritesToServer(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	if _, err := c.Get(ctx, ns, "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing object: %v, want NotFound", err)
	}
	created, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a", Labels: map[string]string{"tier": "web"}}, Data: map[string]string{"color": "red"}})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" {
		t.Fatalf("Create returned %+v, not the stored object", created.ObjectMeta)
	}
	got := cached(t, c, ns, "a", created.ResourceVersion)

	upd := got.DeepCopy()
	upd.Data["color"] = "blue"
	updated, err := c.Update(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	// A write from a stale read is refused, not lost.
	stale := got.DeepCopy()
	stale.Data["color"] = "green"
	if _, err := c.Update(ctx, stale); !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "configmaps "+ns+"/a") {
		t.Fatalf("stale Update: %v, want a Conflict naming the object", err)
	}
	patched, err := c.Patch(ctx, ns, "a", types.MergePatchType, []byte(`{"data":{"size":"xl"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if patched.Data["color"] != "blue" || patched.Data["size"] != "xl" || patched.ResourceVersion == updated.ResourceVersion {
		t.Fatalf("after patch: %v", patched.Data)
	}
	cached(t, c, ns, "a", patched.ResourceVersion)

	if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}, Data: map[string]string{"color": "blue"}}); err != nil {
		t.Fatal(err)
	}
	last, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c", Labels: map[string]string{"tier": "web"}}, Data: map[string]string{"color": "red"}})
	if err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "c", last.ResourceVersion)
	web := object.Selector{Labels: "tier=web"}
	for name, tc := range map[string]struct {
		opts []client.ListOption
		want string
	}{
		"all":             {nil, "a,b,c"},
		"labels":          {[]client.ListOption{client.Matching(web)}, "a,c"},
		"name":            {[]client.ListOption{client.Matching(object.Selector{Fields: "metadata.name=b"})}, "b"},
		"index":           {[]client.ListOption{client.MatchingIndex("by-color", "blue")}, "a,b"},
		"index+labels":    {[]client.ListOption{client.MatchingIndex("by-color", "blue"), client.Matching(web)}, "a"},
		"index+namespace": {[]client.ListOption{client.MatchingIndex("by-color", "red"), client.InNamespace(ns)}, "c"},
		"namespace":       {[]client.ListOption{client.InNamespace(ns)}, "a,b,c"},
	} {
		list, err := c.List(ctx, tc.opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := names(list); got != tc.want {
			t.Errorf("List %s = %s, want %s", name, got, tc.want)
		}
	}
	// The cache holds one namespace: another is an error, not an empty list.
	if _, err := c.List(ctx, client.InNamespace("elsewhere")); err == nil || !strings.Contains(err.Error(), ns) {
		t.Fatalf("List of a namespace the cache does not hold: %v", err)
	}
	if _, err := c.List(ctx, client.Matching(object.Selector{Fields: "data.color=red"})); err == nil || !strings.Contains(err.Error(), "data.color=red") {
		t.Fatalf("List by a field the cache cannot match: %v", err)
	}
	if _, err := c.List(ctx, client.Matching(object.Selector{Labels: "tier in ("})); err == nil || !strings.Contains(err.Error(), "tier in (") {
		t.Fatalf("List with a bad label selector: %v", err)
	}
	if _, err := c.List(ctx, client.MatchingIndex("no-such-index", "x")); err == nil || !strings.Contains(err.Error(), "no-such-index") {
		t.Fatalf("List by an unknown index: %v", err)
	}

	if err := c.Delete(ctx, ns, "a"); err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "a", "")
	if err := c.Delete(ctx, ns, "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("second Delete: %v, want NotFound", err)
	}
}

// Modify loses no write: racing writers that each read, change and write
// back all land, whatever the interleaving, because a conflict starts the
// writer over from a fresh read.
func TestModifyLosesNoConcurrentWrite(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	created, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "counter"}, Data: map[string]string{"n": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "counter", created.ResourceVersion)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				_, err := c.Modify(ctx, ns, "counter", func(cm *corev1.ConfigMap) error {
					n, err := strconv.Atoi(cm.Data["n"])
					cm.Data["n"] = strconv.Itoa(n + 1)
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := c.Live().Get(ctx, ns, "counter")
	if err != nil || got.Data["n"] != "100" {
		t.Fatalf("4 writers x 25 increments: n=%s (%v), want 100", got.Data["n"], err)
	}
}

// Modify writes nothing when mutate changes nothing, passes mutate's error
// back without writing, and says NotFound for a missing object.
func TestModifySkipsNoOpsAndStopsOnErrors(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	created, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}, Data: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "a", created.ResourceVersion)
	same, err := c.Modify(ctx, ns, "a", func(cm *corev1.ConfigMap) error { cm.Data["k"] = "v"; return nil })
	if err != nil || same.ResourceVersion != created.ResourceVersion {
		t.Fatalf("no-op Modify: rv %s (%v), want the unchanged %s", same.ResourceVersion, err, created.ResourceVersion)
	}
	refused := errors.New("refused")
	if _, err := c.Modify(ctx, ns, "a", func(cm *corev1.ConfigMap) error { cm.Data["k"] = "w"; return refused }); !errors.Is(err, refused) {
		t.Fatalf("Modify with a failing mutate: %v", err)
	}
	if got, _ := c.Live().Get(ctx, ns, "a"); got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("a failed or no-op Modify wrote: rv %s", got.ResourceVersion)
	}
	if _, err := c.Modify(ctx, ns, "missing", func(*corev1.ConfigMap) error { return nil }); !apierrors.IsNotFound(err) {
		t.Fatalf("Modify of a missing object: %v, want NotFound", err)
	}
}

func TestCreateOrUpdate(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	want := func(color string) func(*corev1.ConfigMap) error {
		return func(cm *corev1.ConfigMap) error { cm.Data = map[string]string{"color": color}; return nil }
	}
	obj := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}}
	}
	for i, step := range []struct {
		color string
		op    client.Operation
	}{{"red", client.Created}, {"red", client.Unchanged}, {"blue", client.Updated}} {
		got, op, err := c.CreateOrUpdate(ctx, obj(), want(step.color))
		if err != nil || op != step.op || got.Data["color"] != step.color {
			t.Fatalf("step %d: %s %v (%v), want %s with color %s", i, op, got.Data, err, step.op, step.color)
		}
		cached(t, c, ns, "a", got.ResourceVersion)
	}
}

// ModifyStatus writes the status subresource only: what mutate changes
// elsewhere is not saved.
func TestModifyStatus(t *testing.T) {
	ns := testkit.Namespace(t, "client-")
	deployments, f := newClient[*appsv1.Deployment](t, ns)
	ctx, cancel := context.WithCancel(context.Background())
	startFactory(t, f, ctx, cancel)
	d, err := deployments.Create(ctx, testkit.Deployment(ns, "web"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := deployments.ModifyStatus(ctx, ns, "web", func(d *appsv1.Deployment) error {
		d.Status.ObservedGeneration = d.Generation
		d.Labels = map[string]string{"not": "saved"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != d.Generation || got.Labels["not"] == "saved" {
		t.Fatalf("after ModifyStatus: observedGeneration %d (want %d), labels %v", got.Status.ObservedGeneration, d.Generation, got.Labels)
	}
}

// Live reads the API server: it sees a write at once, before the cache.
func TestLiveAndDeleteAllOf(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		tier := "web"
		if name == "c" {
			tier = "db"
		}
		if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"tier": tier}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Live().Get(ctx, ns, name); err != nil {
			t.Fatalf("Live().Get right after Create: %v", err)
		}
	}
	web, err := c.Live().List(ctx, client.InNamespace(ns), client.Matching(object.Selector{Labels: "tier=web"}))
	if err != nil || names(web) != "a,b" {
		t.Fatalf("Live().List of tier=web: %s (%v)", names(web), err)
	}
	if _, err := c.Live().List(ctx, client.MatchingIndex("by-color", "x")); err == nil {
		t.Fatal("Live().List by a cache index succeeded")
	}
	if err := c.DeleteAllOf(ctx, ns, object.Selector{Labels: "tier=web"}); err != nil {
		t.Fatal(err)
	}
	left, err := c.Live().List(ctx, client.InNamespace(ns))
	if err != nil || names(left) != "c" {
		t.Fatalf("after DeleteAllOf tier=web: %s (%v), want c", names(left), err)
	}
	if err := c.DeleteAllOf(ctx, ns, object.Selector{Labels: "tier in ("}); err == nil || !strings.Contains(err.Error(), "tier in (") {
		t.Fatalf("DeleteAllOf with a bad selector: %v", err)
	}
}

func names(list []*corev1.ConfigMap) string {
	var out []string
	for _, cm := range list {
		out = append(out, cm.Name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func mustCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(testkit.Env(t).Config, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startSynced runs f until the test ends and waits for its caches' first
// lists.
func startSynced(t *testing.T, f *informer.Factory) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	startFactory(t, f, ctx, cancel)
	syncCtx, done := context.WithTimeout(ctx, 30*time.Second)
	defer done()
	if err := f.WaitForCacheSync(syncCtx); err != nil {
		t.Fatal(err)
	}
}

// startFactory runs f until the test ends, then cancels ctx and waits for
// f to stop.
func startFactory(t *testing.T, f *informer.Factory, ctx context.Context, cancel func()) {
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Start(ctx) }()
	<-f.Started()
	t.Cleanup(func() { cancel(); <-done })
}

// Options reach the server with the write they are given to, and a write
// without options sends none: a dry run leaves the object as it was, and a
// field manager names the writer in managedFields.
func TestWriteOptionsReachTheServer(t *testing.T) {
	ctx := context.Background()
	ns := testkit.Namespace(t, "client-opts-")
	c, _ := newClient[*corev1.ConfigMap](t, ns) // writes only: no cache needed
	cs := testkit.Clientset(t)
	dryRun := []string{metav1.DryRunAll}

	if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dry"}}, metav1.CreateOptions{DryRun: dryRun}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a dry-run create made the object: %v", err)
	}

	made, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}, Data: map[string]string{"k": "1"}},
		metav1.CreateOptions{FieldManager: "creator"})
	if err != nil {
		t.Fatal(err)
	}
	made.Data["k"] = "2"
	if _, err := c.Update(ctx, made, metav1.UpdateOptions{DryRun: dryRun}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Patch(ctx, ns, "cm", types.MergePatchType, []byte(`{"data":{"k":"3"}}`), metav1.PatchOptions{DryRun: dryRun}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "1" {
		t.Fatalf("after dry runs: %v, %v; want the data the create wrote", got.Data, err)
	}
	if _, err := c.Update(ctx, made, metav1.UpdateOptions{FieldManager: "updater"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Patch(ctx, ns, "cm", types.MergePatchType, []byte(`{"data":{"j":"1"}}`)); err != nil {
		t.Fatal(err)
	}
	got, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	managers := map[string]bool{}
	for _, m := range got.ManagedFields {
		managers[m.Manager] = true
	}
	if got.Data["k"] != "2" || got.Data["j"] != "1" || !managers["creator"] || !managers["updater"] {
		t.Fatalf("data %v, managers %v; want k=2, j=1 and the creator's and updater's fields", got.Data, managers)
	}
}
