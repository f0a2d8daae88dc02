package client_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// setup returns a client for config maps in a fresh namespace, its cache
// synced, running until the test ends.
func setup(t *testing.T) (*client.Client[*corev1.ConfigMap], string) {
	t.Helper()
	ctx := context.Background()
	ns := testkit.Namespace(t, "client-")
	f, err := informer.NewFactory(testkit.Env(t).Config, scheme.Scheme, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.For[*corev1.ConfigMap](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Informer().AddIndex("by-color", func(cm *corev1.ConfigMap) ([]string, error) {
		return []string{cm.Data["color"]}, nil
	}); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	f.Start(runCtx)
	t.Cleanup(func() { cancel(); f.Wait() })
	syncCtx, done := context.WithTimeout(ctx, 30*time.Second)
	defer done()
	if err := f.WaitForCacheSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	return c, ns
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
	web := labels.SelectorFromSet(labels.Set{"tier": "web"})
	for name, tc := range map[string]struct {
		opts []client.ListOption
		want string
	}{
		"all":             {nil, "a,b,c"},
		"labels":          {[]client.ListOption{client.MatchingLabels(web)}, "a,c"},
		"index":           {[]client.ListOption{client.MatchingIndex("by-color", "blue")}, "a,b"},
		"index+labels":    {[]client.ListOption{client.MatchingIndex("by-color", "blue"), client.MatchingLabels(web)}, "a"},
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

// Namespace plugs into controller.Update: concurrent writers that each read,
// change and write back all land, whatever the interleaving.
func TestNamespacedRetriesConflicts(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "counter"}}); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			_, err := controller.Update(ctx, c.Namespace(ns), "counter", func(cm *corev1.ConfigMap) error {
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				cm.Data[string(rune('a'+i))] = "x"
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := testkit.Clientset(t).CoreV1().ConfigMaps(ns).Get(ctx, "counter", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != writers {
		t.Fatalf("%d of %d writes landed: %v", len(got.Data), writers, got.Data)
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
