package client_test

import (
	"context"
	"strconv"
	"strings"
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
	"github.com/steadyctl/steady/testenv"
)

// laggingClient returns a client of T in a fresh namespace whose cache
// sees every watch event lag late, its cache synced, running until the
// test ends.
func laggingClient[T object.Object](t *testing.T, prefix string, lag time.Duration) (*client.Client[T], string, *testenv.WatchLag) {
	t.Helper()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, prefix)
	wl, err := env.NewWatchLag(lag)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wl.Close) // after the factory has stopped: cleanups run last first
	cl, err := cluster.New(wl.Config, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(cl)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.For[T](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	startSynced(t, f)
	return c, ns, wl
}

// CreateOrUpdate's outcome does not depend on how far the cache is
// behind: fed back the object it returned, 200 times in a row, with the
// cache a second behind, each call creates, updates or leaves the object
// as the API server has it, and never fails. The mutate sets a value that
// changes every other call, so half the calls must write and half not.
func TestCreateOrUpdateFedBackWithALaggingCache(t *testing.T) {
	c, ns, _ := laggingClient[*corev1.ConfigMap](t, "cou-lag-", time.Second)
	cs := testkit.Clientset(t)
	ctx := context.Background()
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fed"}}
	for i := range 200 {
		value := strconv.Itoa(i / 2)
		got, op, err := c.CreateOrUpdate(ctx, obj, func(cm *corev1.ConfigMap) error {
			cm.Data = map[string]string{"value": value}
			return nil
		})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		want := client.Updated
		switch {
		case i == 0:
			want = client.Created
		case i%2 == 1:
			want = client.Unchanged
		}
		stored, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "fed", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if op != want || got.Data["value"] != value || stored.Data["value"] != value || got.ResourceVersion != stored.ResourceVersion {
			t.Fatalf("call %d: %s, returned value %q at rv %s, stored %q at rv %s; want %s of %q",
				i, op, got.Data["value"], got.ResourceVersion, stored.Data["value"], stored.ResourceVersion, want, value)
		}
		obj = got
	}
	// Deleted behind the cache's back: the update finds it gone and
	// creates it again.
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "fed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, op, err := c.CreateOrUpdate(ctx, obj, func(cm *corev1.ConfigMap) error {
		cm.Data = map[string]string{"value": "again"}
		return nil
	})
	if err != nil || op != client.Created || got.UID == obj.UID {
		t.Fatalf("after a delete: %s (%v), uid %s, the deleted one's %s; want a new object created", op, err, got.UID, obj.UID)
	}
}

// A mutate that renames or moves the object is refused on the create and
// on the update path, naming both keys, and nothing is written.
func TestCreateOrUpdateRefusesARename(t *testing.T) {
	c, ns, _ := laggingClient[*corev1.ConfigMap](t, "cou-rename-", 0)
	cs := testkit.Clientset(t)
	ctx := context.Background()
	rename := func(cm *corev1.ConfigMap) error { cm.Name = "other"; return nil }
	move := func(cm *corev1.ConfigMap) error { cm.Namespace = "default"; return nil }
	for _, write := range []func(*corev1.ConfigMap, func(*corev1.ConfigMap) error) error{
		func(cm *corev1.ConfigMap, m func(*corev1.ConfigMap) error) error {
			_, _, err := c.CreateOrUpdate(ctx, cm, m)
			return err
		},
		func(cm *corev1.ConfigMap, m func(*corev1.ConfigMap) error) error {
			_, _, err := c.CreateOrPatch(ctx, cm, m)
			return err
		},
	} {
		for _, mutate := range []func(*corev1.ConfigMap) error{rename, move} {
			err := write(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "new"}}, mutate)
			if err == nil || !strings.Contains(err.Error(), ns+"/new") {
				t.Errorf("create path: %v, want an error naming %s/new", err, ns)
			}
		}
	}
	if l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Fatalf("after refused creates the namespace holds %v (%v)", l, err)
	}
	existing, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"}})
	if err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "kept", existing.ResourceVersion)
	for _, mutate := range []func(*corev1.ConfigMap) error{rename, move} {
		_, _, err := c.CreateOrUpdate(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"}}, mutate)
		if err == nil || !strings.Contains(err.Error(), ns+"/kept") {
			t.Errorf("update path: %v, want an error naming %s/kept", err, ns)
		}
		_, _, err = c.CreateOrPatch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"}}, mutate)
		if err == nil || !strings.Contains(err.Error(), ns+"/kept") {
			t.Errorf("patch path: %v, want an error naming %s/kept", err, ns)
		}
	}
	if got, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kept", metav1.GetOptions{}); err != nil || got.ResourceVersion != existing.ResourceVersion {
		t.Fatalf("kept was written: %v (%v)", got, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a move created default/kept: %v", err)
	}
}

// CreateOrPatch reports what it wrote as controller-runtime's does:
// created (with the status mutate set written too, which controller-runtime
// leaves out), updated, updated status, updated status only, unchanged;
// and each answer is what the API server stores.
func TestCreateOrPatchOutcomes(t *testing.T) {
	c, ns, _ := laggingClient[*appsv1.Deployment](t, "cop-", 0)
	cs := testkit.Clientset(t)
	ctx := context.Background()
	desired := func(replicas, observed int32) func(*appsv1.Deployment) error {
		return func(d *appsv1.Deployment) error {
			d.Spec.Replicas = &replicas
			d.Status.ObservedGeneration = int64(observed)
			return nil
		}
	}
	for i, step := range []struct {
		replicas, observed int32
		want               client.Operation
	}{
		{2, 7, client.Created},
		{2, 7, client.Unchanged},
		{3, 7, client.Updated},
		{4, 8, client.UpdatedStatus},
		{4, 9, client.UpdatedStatusOnly},
		{4, 9, client.Unchanged},
	} {
		got, op, err := c.CreateOrPatch(ctx, testkit.Deployment(ns, "web"), desired(step.replicas, step.observed))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		stored, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if op != step.want || *stored.Spec.Replicas != step.replicas || stored.Status.ObservedGeneration != int64(step.observed) ||
			got.ResourceVersion != stored.ResourceVersion {
			t.Fatalf("step %d: %s; stored %d replicas, observedGeneration %d at rv %s, returned rv %s; want %s to %d, %d",
				i, op, *stored.Spec.Replicas, stored.Status.ObservedGeneration, stored.ResourceVersion, got.ResourceVersion,
				step.want, step.replicas, step.observed)
		}
		testkit.Eventually(t, 20*time.Second, "the cache to show the step", func() bool {
			d, err := c.Get(ctx, ns, "web")
			return err == nil && d.ResourceVersion == stored.ResourceVersion
		})
	}
}

// A merge patch computed from a stale cache would replace a list with the
// stale list plus mutate's change, dropping what another writer added;
// CreateOrPatch's patches carry the resourceVersion they were computed
// from, so it sees the conflict, reads the API server and patches again:
// both changes are kept.
func TestCreateOrPatchKeepsAChangeTheCacheMissed(t *testing.T) {
	c, ns, wl := laggingClient[*appsv1.Deployment](t, "cop-stale-", 0)
	cs := testkit.Clientset(t)
	ctx := context.Background()
	d, err := c.Create(ctx, testkit.Deployment(ns, "web"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the cache to hold web", func() error {
		_, err := c.Get(ctx, ns, "web")
		return err
	})
	// Another writer adds a second container, which the cache sees only
	// after CreateOrPatch has read it.
	wl.Set(5 * time.Second)
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"example.invalid/app:1"},{"name":"sidecar","image":"side:1"}]}}}}`
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	_, op, err := c.CreateOrPatch(ctx, testkit.Deployment(ns, "web"), func(d *appsv1.Deployment) error {
		d.Spec.Template.Spec.Containers[0].Image = "app:2"
		return nil
	})
	if err != nil || op != client.Updated {
		t.Fatalf("%s, %v; want updated", op, err)
	}
	stored, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, c := range stored.Spec.Template.Spec.Containers {
		images = append(images, c.Image)
	}
	if strings.Join(images, ",") != "app:2,side:1" {
		t.Fatalf("stored images %v (from rv %s), want app:2 and side:1", images, d.ResourceVersion)
	}
}
